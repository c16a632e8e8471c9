import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import { openQueue } from './agent.queue'

/** Where earlier collectors kept their queue: a SQLite file in the state dir. */
export const SQLITE_QUEUE_FILE = 'queue.db'

/**
 * Moves the samples an earlier collector left in its SQLite queue into the file queue, oldest
 * first, then deletes the database. Loaded only when that file exists, so a collector that never
 * had one does not load the database engine. A crash between the copy and the delete copies
 * them again at the next start: the hub recognises samples it already stored, so that repeats
 * nothing. Returns how many samples moved.
 */
export async function importSqliteQueue(stateDir: string, deps: { clock: Clock; log: Logger }): Promise<number> {
  const path = join(stateDir, SQLITE_QUEUE_FILE)
  if (!existsSync(path)) return 0
  const { Database } = await import('bun:sqlite')
  // read-write, so that SQLite can replay the file's write-ahead log
  const db = new Database(path)
  let rows: { recordedAt: number; body: string }[] = []
  try {
    const hasTable = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'queue'").get()
    if (hasTable) rows = db.query<{ recordedAt: number; body: string }, []>('SELECT recorded_at AS recordedAt, body FROM queue ORDER BY id').all()
  } finally {
    db.close()
  }
  const queue = openQueue(stateDir, deps)
  try {
    // JSON.stringify's bodies are one line; a hand-edited row with a raw newline still is JSON without it
    queue.pushMany(rows.map((r) => ({ recordedAt: r.recordedAt, body: r.body.replaceAll('\n', ' ') })))
  } finally {
    queue.close()
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
  if (rows.length) deps.log.info('agent queue: moved the samples of the earlier SQLite queue', { samples: rows.length })
  return rows.length
}
