/**
 * The bench's baseline: the least a server can do for POST /v1/metrics/batch — Bun.serve,
 * parse the JSON, one prepared INSERT (its own transaction) on WAL + synchronous=NORMAL.
 * Usage: bun scripts/bench/bare.ts <port> <db file>
 */
import { Database } from 'bun:sqlite'

const [port, path] = process.argv.slice(2)
if (!port || !path) throw new Error('usage: bare.ts <port> <db file>')
const db = new Database(path, { create: true })
db.run('PRAGMA journal_mode = WAL')
db.run('PRAGMA synchronous = NORMAL')
db.run('CREATE TABLE IF NOT EXISTS samples (id INTEGER PRIMARY KEY, device TEXT, ts INTEGER NOT NULL, cpu REAL, body TEXT)')
const insert = db.prepare('INSERT INTO samples (device, ts, cpu, body) VALUES (?, ?, ?, ?)')

const server = Bun.serve({
  port: Number(port),
  hostname: '127.0.0.1',
  async fetch(req) {
    if (req.method !== 'POST') return new Response('ok')
    const body = (await req.json()) as { hardware?: { cpu_percent?: number } }
    const r = insert.run(req.headers.get('x-device-id'), Date.now(), body.hardware?.cpu_percent ?? null, JSON.stringify(body))
    return Response.json({ id: Number(r.lastInsertRowid) }, { status: 201 })
  },
})
console.log(`bare listening on ${server.port}`)
process.on('SIGTERM', () => {
  server.stop(true)
  db.close()
  process.exit(0)
})
