/**
 * The group-commit baseline for POST /v1/metrics/batch: Bun.serve, parse the JSON, and the
 * requests of one turn of the event loop inserted in one transaction, each answered after its
 * COMMIT (WAL + synchronous=NORMAL), as Vigil's writer does, with nothing else Vigil does.
 * With `http` after the db file, the floor under it: the body read as text and answered with
 * the bytes of a hub's 201 (same size), no parse, no database: what Bun's HTTP alone costs a request.
 * Usage: bun scripts/bench/bare-group.ts <port> <db file> [http]
 */
import { Database } from 'bun:sqlite'

const [port, path, mode] = process.argv.slice(2)
if (!port || !path) throw new Error('usage: bare-group.ts <port> <db file> [http]')
const db = new Database(path, { create: true })
db.run('PRAGMA journal_mode = WAL')
db.run('PRAGMA synchronous = NORMAL')
db.run('CREATE TABLE IF NOT EXISTS samples (id INTEGER PRIMARY KEY, device TEXT, ts INTEGER NOT NULL, cpu REAL, body TEXT)')
const insert = db.prepare('INSERT INTO samples (device, ts, cpu, body) VALUES (?, ?, ?, ?)')
let queue: { device: string | null; body: { hardware?: { cpu_percent?: number } }; done(id: number): void }[] = []

function flush() {
  const batch = queue
  queue = []
  const ids = db.transaction(() =>
    batch.map((q) => Number(insert.run(q.device, Date.now(), q.body.hardware?.cpu_percent ?? null, JSON.stringify(q.body)).lastInsertRowid)),
  )()
  for (const [i, q] of batch.entries()) q.done(ids[i]!)
}

/** what a hub answers a batch of both parts with (ids and times of this length) */
const ANSWER = JSON.stringify({
  device_id: 'dev_0190a1b2c3d4e5f60718293a4b5c6d7e',
  hardware: { id: 1234567, recorded_at: '2026-01-01T00:00:00.000Z' },
  network: { id: 1234567, recorded_at: '2026-01-01T00:00:00.000Z' },
})

const server = Bun.serve({
  port: Number(port),
  hostname: '127.0.0.1',
  async fetch(req) {
    if (req.method !== 'POST') return new Response('ok')
    if (mode === 'http') {
      await req.text()
      return new Response(ANSWER, { status: 201, headers: { 'content-type': 'application/json' } })
    }
    const body = (await req.json()) as { hardware?: { cpu_percent?: number } }
    const id = await new Promise<number>((done) => {
      if (!queue.length) setImmediate(flush)
      queue.push({ device: req.headers.get('x-device-id'), body, done })
    })
    return Response.json({ id }, { status: 201 })
  },
})
console.log(`bare-group listening on ${server.port}`)
process.on('SIGTERM', () => {
  server.stop(true)
  db.close()
  process.exit(0)
})
