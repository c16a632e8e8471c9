/**
 * The group-commit baseline for POST /v1/metrics/batch: Bun.serve, parse the JSON, and the
 * requests of one turn of the event loop inserted in one transaction, each answered after its
 * COMMIT (WAL + synchronous=NORMAL), as Vigil's writer does, with nothing else Vigil does.
 * Usage: bun scripts/bench/bare-group.ts <port> <db file>
 */
import { Database } from 'bun:sqlite'

const [port, path] = process.argv.slice(2)
if (!port || !path) throw new Error('usage: bare-group.ts <port> <db file>')
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

const server = Bun.serve({
  port: Number(port),
  hostname: '127.0.0.1',
  async fetch(req) {
    if (req.method !== 'POST') return new Response('ok')
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
