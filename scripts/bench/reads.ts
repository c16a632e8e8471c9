export {}

/**
 * Read latency from a second process: sequential GETs (one at a time, so the figure is the
 * server's time plus loopback, not queueing), after a warm-up. Each path is measured in rounds;
 * p50 and p99 are over all the rounds' requests together (a p99 of one round of 1,000 rests on
 * its 10 slowest), and each round's own p99 shows the spread.
 * Prints {name: {p50, p99, p99Rounds, status}} in ms as JSON.
 * Usage: bun scripts/bench/reads.ts '<json: {base, token, paths: {name: path}, n, rounds, warmup}>'; `{random:N}` in a
 * path is replaced by a random integer below N for each request; `{time:A:B}` by a random time in [A, B) (ms) as an ISO
 * date, and `{time+D}` by that same time plus D ms (a window at a random place).
 */
interface ReadSpec {
  base: string
  token: string
  paths: Record<string, string>
  n: number
  rounds: number
  warmup: number
  /** with it, each measured request's start (wall-clock ms, as the hub's trace has it) and duration: times[name] */
  times?: boolean
}

const spec = JSON.parse(process.argv[2]!) as ReadSpec
const headers = { authorization: `Bearer ${spec.token}` }
/** The q-quantile of ascending times (nearest rank). */
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
const round2 = (ms: number) => Math.round(ms * 100) / 100
const out: Record<string, { p50: number; p99: number; p99Rounds: number[]; status: number; times?: [number, number][] }> = {}

/** `{random:N}` in a path becomes a fresh integer below N each request (a history page at a random offset: a cold read) */
const fill = (path: string) => {
  let t = 0
  return path
    .replace(/\{random:(\d+)\}/g, (_, n: string) => String(Math.floor(Math.random() * Number(n))))
    .replace(/\{time:(\d+):(\d+)\}/g, (_, a: string, b: string) => {
      t = Number(a) + Math.floor(Math.random() * (Number(b) - Number(a)))
      return new Date(t).toISOString()
    })
    .replace(/\{time\+(\d+)\}/g, (_, d: string) => new Date(t + Number(d)).toISOString())
}

async function timed(path: string): Promise<{ ms: number; status: number; at: number }> {
  const url = spec.base + fill(path)
  const t0 = performance.now()
  const res = await fetch(url, { headers })
  await res.arrayBuffer()
  return { ms: performance.now() - t0, status: res.status, at: performance.timeOrigin + t0 }
}

for (const [name, path] of Object.entries(spec.paths)) {
  let status = 0
  for (let i = 0; i < spec.warmup; i++) status = (await timed(path)).status
  const all: number[] = []
  const p99Rounds: number[] = []
  const stamped: [number, number][] = []
  for (let r = 0; r < spec.rounds; r++) {
    const times: number[] = []
    for (let i = 0; i < spec.n; i++) {
      const t = await timed(path)
      times.push(t.ms)
      if (spec.times) stamped.push([t.at, t.ms])
      status = t.status
    }
    all.push(...times)
    p99Rounds.push(
      round2(
        quantile(
          times.sort((a, b) => a - b),
          0.99,
        ),
      ),
    )
  }
  all.sort((a, b) => a - b)
  out[name] = { p50: round2(quantile(all, 0.5)), p99: round2(quantile(all, 0.99)), p99Rounds, status, ...(spec.times ? { times: stamped } : {}) }
}
console.log(JSON.stringify(out))
