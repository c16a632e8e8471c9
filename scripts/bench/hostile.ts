/**
 * The hostile-traffic helpers, each run as its own process so neither shares an event loop
 * with the server or with the other:
 * - `probe`: GET /health every 5 ms (one at a time: a monitor, not a second load), for `duration` s;
 *   latency p50/p99/max;
 * - `attack`: `clients` loops that each send, as fast as the answers come, in turn a body nested
 *   100,000 deep (~200 KB), a declared 2 MiB body and a chunked 2 MiB body, with a valid key
 *   (an anonymous sender would only meet the rate limit); answers counted by kind and status.
 * Usage: bun scripts/bench/hostile.ts '<json: {mode, base, keys, duration, clients}>'
 */
interface Spec {
  mode: 'probe' | 'attack'
  base: string
  keys: string[]
  duration: number
  clients: number
}

const spec = JSON.parse(process.argv[2]!) as Spec
const deadline = performance.now() + spec.duration * 1000
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0
const round2 = (n: number) => Math.round(n * 100) / 100

const PROBE_EVERY_MS = 5

async function probe() {
  const lat: number[] = []
  while (performance.now() < deadline) {
    const t0 = performance.now()
    const res = await fetch(`${spec.base}/health`)
    await res.arrayBuffer()
    const took = performance.now() - t0
    lat.push(took)
    if (took < PROBE_EVERY_MS) await Bun.sleep(PROBE_EVERY_MS - took)
  }
  lat.sort((a, b) => a - b)
  return { n: lat.length, p50: round2(quantile(lat, 0.5)), p99: round2(quantile(lat, 0.99)), max: round2(lat.at(-1) ?? 0) }
}

const DEEP = '['.repeat(100_000) + ']'.repeat(100_000)
const BIG = ' '.repeat(2 * 1024 * 1024)
const CHUNK = new Uint8Array(64 * 1024).fill(0x20)
const chunked = () =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < 32; i++) c.enqueue(CHUNK)
      c.close()
    },
  })
const KINDS = { deep: () => DEEP, declared: () => BIG, chunked } as const

async function attack() {
  const counts: Record<string, number> = {}
  const count = (k: string) => void (counts[k] = (counts[k] ?? 0) + 1)
  const client = async (i: number) => {
    const headers = { 'content-type': 'application/json', 'x-api-key': spec.keys[i % spec.keys.length]! }
    for (let n = 0; performance.now() < deadline; n++) {
      const [kind, body] = Object.entries(KINDS)[n % 3]!
      try {
        const res = await fetch(`${spec.base}/v1/metrics/batch`, { method: 'POST', headers, body: body(), duplex: 'half' } as RequestInit)
        await res.arrayBuffer()
        count(`${kind} ${res.status}`)
      } catch {
        count(`${kind} reset`) // a chunked upload the server stopped reading may end in a reset
      }
    }
  }
  await Promise.all(Array.from({ length: spec.clients }, (_, i) => client(i)))
  return counts
}

console.log(JSON.stringify(spec.mode === 'probe' ? await probe() : await attack()))
export {} // a module: top-level await above
