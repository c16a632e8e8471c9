export {}

/**
 * Read latency from a second process: sequential GETs (one at a time, so the figure is the
 * server's time plus loopback, not queueing), after a warm-up. Prints p50/p99 in ms as JSON.
 * Usage: bun scripts/bench/reads.ts '<json: {base, token, paths: {name: path}, n, warmup}>'
 */
interface ReadSpec {
  base: string
  token: string
  paths: Record<string, string>
  n: number
  warmup: number
}

const spec = JSON.parse(process.argv[2]!) as ReadSpec
const headers = { authorization: `Bearer ${spec.token}` }
const out: Record<string, { p50: number; p99: number; status: number }> = {}
for (const [name, path] of Object.entries(spec.paths)) {
  let status = 0
  const times: number[] = []
  for (let i = 0; i < spec.warmup + spec.n; i++) {
    const t0 = performance.now()
    const res = await fetch(spec.base + path, { headers })
    await res.arrayBuffer()
    const ms = performance.now() - t0
    status = res.status
    if (i >= spec.warmup) times.push(ms)
  }
  times.sort((a, b) => a - b)
  const pick = (q: number) => Math.round(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]! * 100) / 100
  out[name] = { p50: pick(0.5), p99: pick(0.99), status }
}
console.log(JSON.stringify(out))
