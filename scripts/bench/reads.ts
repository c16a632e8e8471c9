export {}

/**
 * Read latency from a second process: sequential GETs (one at a time, so the figure is the
 * server's time plus loopback, not queueing), after a warm-up. A p99 of 1,000 requests rests on
 * its 10 slowest, so each path is measured in several rounds and the medians are reported, with
 * every round's p99. Prints {name: {p50, p99, p99Rounds, status}} in ms as JSON.
 * Usage: bun scripts/bench/reads.ts '<json: {base, token, paths: {name: path}, n, rounds, warmup}>'
 */
interface ReadSpec {
  base: string
  token: string
  paths: Record<string, string>
  n: number
  rounds: number
  warmup: number
}

const spec = JSON.parse(process.argv[2]!) as ReadSpec
const headers = { authorization: `Bearer ${spec.token}` }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const round2 = (ms: number) => Math.round(ms * 100) / 100
const out: Record<string, { p50: number; p99: number; p99Rounds: number[]; status: number }> = {}

async function timed(path: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now()
  const res = await fetch(spec.base + path, { headers })
  await res.arrayBuffer()
  return { ms: performance.now() - t0, status: res.status }
}

for (const [name, path] of Object.entries(spec.paths)) {
  let status = 0
  for (let i = 0; i < spec.warmup; i++) status = (await timed(path)).status
  const p50s: number[] = []
  const p99s: number[] = []
  for (let r = 0; r < spec.rounds; r++) {
    const times: number[] = []
    for (let i = 0; i < spec.n; i++) {
      const t = await timed(path)
      times.push(t.ms)
      status = t.status
    }
    times.sort((a, b) => a - b)
    const pick = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!
    p50s.push(pick(0.5))
    p99s.push(pick(0.99))
  }
  out[name] = { p50: round2(median(p50s)), p99: round2(median(p99s)), p99Rounds: p99s.map(round2), status }
}
console.log(JSON.stringify(out))
