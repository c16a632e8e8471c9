/**
 * The live-stream bench's helpers, each run as its own process (not on the server's event loop):
 * - `fleet`: every device posts one batch (`body`: the real sample) every 10 s, spread evenly over
 *   the 10 s, as a fleet of collectors does, until SIGTERM (or `duration` s); then prints the
 *   answers counted by status;
 * - `streams`: opens `tokens.length × perToken` GET /v1/events streams, prints `{"ready":…}`
 *   once all are open, reads them for `duration` s, then prints what arrived.
 * Usage: bun scripts/bench/live.ts '<json: {mode, base, duration, …}>'
 */
export {} // a module: its last line awaits at the top level
interface FleetSpec {
  mode: 'fleet'
  base: string
  duration: number
  devices: { key: string; id: string }[]
  /** one POST /v1/metrics/batch body, the real sample */
  body: string
}
interface StreamsSpec {
  mode: 'streams'
  base: string
  duration: number
  tokens: string[]
  perToken: number
}

const spec = JSON.parse(process.argv[2]!) as FleetSpec | StreamsSpec
const EVERY_MS = 10_000

async function fleet(s: FleetSpec) {
  const counts: Record<string, number> = {}
  const count = (k: string) => void (counts[k] = (counts[k] ?? 0) + 1)
  process.once('SIGTERM', () => {
    console.log(JSON.stringify(counts))
    process.exit(0)
  })
  const deadline = performance.now() + s.duration * 1000
  const post = async (d: { key: string; id: string }) => {
    try {
      const res = await fetch(`${s.base}/v1/metrics/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': d.key, 'x-device-id': d.id },
        body: s.body,
      })
      await res.arrayBuffer()
      count(String(res.status))
    } catch {
      count('error')
    }
  }
  // device n posts at n × (10 s / devices) into each 10 s period
  await Promise.all(
    s.devices.map(async (d, n) => {
      await Bun.sleep((n * EVERY_MS) / s.devices.length)
      while (performance.now() < deadline) {
        const next = performance.now() + EVERY_MS
        await post(d)
        await Bun.sleep(Math.max(0, next - performance.now()))
      }
    }),
  )
  return counts
}

async function streams(s: StreamsSpec) {
  const totals = { opened: 0, refused: 0, events: 0, samples: 0, bytes: 0, endedEarly: 0 }
  const controller = new AbortController()
  const readers: Promise<void>[] = []
  const decoder = new TextDecoder()
  const read = async (res: Response) => {
    const reader = res.body!.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) {
          totals.endedEarly++
          return
        }
        totals.bytes += value.byteLength
        const text = decoder.decode(value)
        for (let i = text.indexOf('\nevent: '); i !== -1; i = text.indexOf('\nevent: ', i + 1)) {
          totals.events++
          if (text.startsWith('sample', i + 8)) totals.samples++
        }
      }
    } catch {
      // aborted at the end of the run
    }
  }
  for (const token of s.tokens) {
    for (let k = 0; k < s.perToken; k++) {
      const res = await fetch(`${s.base}/v1/events`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal })
      if (res.status !== 200) {
        totals.refused++
        await res.arrayBuffer()
        continue
      }
      totals.opened++
      readers.push(read(res))
    }
  }
  console.log(JSON.stringify({ ready: totals.opened }))
  await Bun.sleep(s.duration * 1000)
  controller.abort()
  await Promise.all(readers)
  return { ...totals, seconds: s.duration }
}

console.log(JSON.stringify(spec.mode === 'fleet' ? await fleet(spec) : await streams(spec)))
