/**
 * The load generator, run as its own process so it does not share an event loop with the
 * server. Drives POST with autocannon, one connection per device (each sends its own key and
 * x-device-id), and prints autocannon's summary as JSON on stdout.
 * Usage: bun scripts/bench/load.ts '<json: {url, body, devices: [{key, id}], connections, duration}>'
 */
import autocannon from 'autocannon'

interface LoadSpec {
  url: string
  body: string
  devices: { key: string; id: string }[]
  connections: number
  duration: number
}

const spec = JSON.parse(process.argv[2]!) as LoadSpec
let next = 0
const result = await autocannon({
  url: spec.url,
  method: 'POST',
  body: spec.body,
  connections: spec.connections,
  duration: spec.duration,
  // each connection is one collector
  setupClient(client: { setHeaders(h: Record<string, string>): void }) {
    const d = spec.devices[next++ % spec.devices.length]!
    client.setHeaders({ 'content-type': 'application/json', 'x-api-key': d.key, 'x-device-id': d.id })
  },
})
console.log(
  JSON.stringify({
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    p99_9: result.latency.p99_9,
    max: result.latency.max,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }),
)
