/**
 * The read client's own share of the read latencies in the bench: `bun scripts/bench/read-floor.ts`
 * serves a fixed 115 KB JSON-sized body (a history page of 120 samples) from a handler that does
 * no work, and measures it with the bench's read client (reads.ts), the same way as the real reads.
 */
import { join } from 'node:path'
import { runJson } from './proc'

const page = new Uint8Array(115_354).fill(32)
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(page, { headers: { 'content-type': 'application/json' } }) })
try {
  const spec = { base: `http://127.0.0.1:${server.port}`, token: 'none', n: 1_000, rounds: 5, warmup: 200, paths: { 'fixed 115 KB body': '/' } }
  console.log(JSON.stringify(await runJson(join(import.meta.dir, 'reads.ts'), spec, 120_000)))
} finally {
  server.stop(true)
}
