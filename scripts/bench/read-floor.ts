/**
 * The read client's own share of the read latencies in the bench: `bun scripts/bench/read-floor.ts`
 * serves a fixed 115 KB JSON-sized body (a history page of 120 samples) from a handler that does
 * no work, and measures it with the bench's read client (reads.ts), the same way as the real reads.
 */
import { join } from 'node:path'

const page = new Uint8Array(115_354).fill(32)
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(page, { headers: { 'content-type': 'application/json' } }) })
try {
  const spec = { base: `http://127.0.0.1:${server.port}`, token: 'none', n: 1_000, rounds: 5, warmup: 200, paths: { 'fixed 115 KB body': '/' } }
  // spawned, not spawnSync: this process must keep serving while the client runs
  const client = Bun.spawn([process.execPath, join(import.meta.dir, 'reads.ts'), JSON.stringify(spec)], { stdout: 'pipe', stderr: 'inherit' })
  console.log((await new Response(client.stdout).text()).trim())
  await client.exited
} finally {
  server.stop(true)
}
