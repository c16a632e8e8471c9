/**
 * The storage measure's thread: `dbstat` reads every page of the file, seconds on a large
 * database, which on the event loop would hold every request and every ingest for as long. Here
 * it reads on a read-only connection of its own (WAL: writers go on meanwhile) and costs the
 * server one message. storage.measurer.ts starts it for one measure and ends it after.
 */
import { Database } from 'bun:sqlite'
import { tableBytesQuery } from './storage.store'

declare const self: Worker

export type MeasureRequest = { path: string }
export type MeasureReply = { ok: true; tables: [string, number][] } | { ok: false; message: string }

self.onmessage = (event: MessageEvent<MeasureRequest>) => {
  let reply: MeasureReply
  let db: Database | null = null
  try {
    db = new Database(event.data.path, { readonly: true })
    db.run('PRAGMA busy_timeout = 5000')
    reply = {
      ok: true,
      tables: db
        .query<{ tbl: string; bytes: number }, []>(tableBytesQuery)
        .all()
        .map((r) => [r.tbl, r.bytes]),
    }
  } catch (err) {
    reply = { ok: false, message: (err as Error).message }
  } finally {
    db?.close()
  }
  postMessage(reply)
}
