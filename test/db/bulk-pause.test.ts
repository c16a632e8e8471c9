import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { walBoundedPause } from '../../src/db/bulk-pause'
import { yieldToRequests } from '../../src/lib/yield'
import { startCheckpointer } from '../../src/db/checkpointer'
import { walInUseBytes } from '../../src/db/wal'
import { memoryLogger } from '../../src/lib/logger'
import { tempDir } from '../helpers/binary'
import { manualTimers } from '../helpers/timers'

const FRAME = 4096 + 24

/** A WAL database whose only checkpoints are the ones a test runs, with `rows` rows of 600 random bytes. */
function walDatabase(rows: number) {
  const path = join(tempDir('vigil-bulk-'), 'bulk.db')
  const db = new Database(path, { create: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA synchronous = NORMAL')
  db.run('PRAGMA wal_autocheckpoint = 0')
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)')
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)')
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(crypto.getRandomValues(new Uint8Array(600)))
  })()
  db.run('PRAGMA wal_checkpoint(TRUNCATE)')
  return { path, db }
}

const walFileBytes = (path: string) => statSync(`${path}-wal`).size

describe('the WAL in use, read from the wal-index header', () => {
  test('counts the frames written since the WAL started over, as SQLite reports them', () => {
    const { path, db } = walDatabase(0)
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)')
    for (let i = 0; i < 50; i++) insert.run(crypto.getRandomValues(new Uint8Array(3000)))
    const { log } = db.query<{ log: number }, []>('PRAGMA wal_checkpoint(PASSIVE)').get()!
    expect(log).toBeGreaterThan(50)
    expect(walInUseBytes(path)).toBe(32 + log * FRAME)
    // everything copied: the next write starts the WAL over, though the file keeps its size
    insert.run(new Uint8Array(10))
    const now = walInUseBytes(path)!
    expect(now).toBeLessThan(32 + 5 * FRAME)
    expect(walFileBytes(path)).toBeGreaterThanOrEqual(32 + log * FRAME)
    db.close()
  })

  test('is null without a wal-index to read', () => {
    expect(walInUseBytes(join(tempDir('vigil-bulk-'), 'none.db'))).toBeNull()
  })
})

describe('a long run of deletes paced by walBoundedPause', () => {
  /** deletes every row, 200 a step, with `pause` between steps; the largest WAL seen */
  async function deleteAll(pause: () => Promise<void>, path: string, db: Database) {
    const step = db.prepare('DELETE FROM t WHERE id IN (SELECT id FROM t ORDER BY id LIMIT 200)')
    let largest = 0
    while (step.run().changes > 0) {
      largest = Math.max(largest, walInUseBytes(path) ?? 0)
      await pause()
    }
    return largest
  }

  const BOUND = 256 * 1024

  test('keeps the WAL within its bound and a step, where a bare turn of the event loop lets it grow', async () => {
    const bare = walDatabase(20_000)
    const unbounded = await deleteAll(yieldToRequests, bare.path, bare.db)
    bare.db.close()
    // nothing copies it back: the WAL holds the whole run's writes
    expect(unbounded).toBeGreaterThan(8 * BOUND)

    const { path, db } = walDatabase(20_000)
    const { logger } = memoryLogger()
    // cycles only when the pause asks for one: the timer never fires
    const cp = startCheckpointer({ sqlite: db, synchronous: 'NORMAL', holdWrites: () => () => {}, logger, everyMs: 1_000, timers: manualTimers().timers })
    let catchUps = 0
    const pause = walBoundedPause({
      inUseBytes: () => walInUseBytes(path),
      boundBytes: BOUND,
      catchUp: () => {
        catchUps++
        return cp.catchUp()
      },
    })
    const largest = await deleteAll(pause, path, db)
    await cp.stop()
    expect(catchUps).toBeGreaterThan(4)
    // one step writes well under 64 frames here
    expect(largest).toBeLessThanOrEqual(BOUND + 64 * FRAME)
    expect(walFileBytes(path)).toBeLessThanOrEqual(BOUND + 64 * FRAME)
    expect(db.query<{ n: number }, []>('SELECT count(*) AS n FROM t').get()!.n).toBe(0)
    db.close()
  })

  test('without a readable WAL size it only yields', async () => {
    let catchUps = 0
    const pause = walBoundedPause({
      inUseBytes: () => null,
      boundBytes: 1,
      catchUp: async () => void catchUps++,
    })
    await pause()
    expect(catchUps).toBe(0)
  })
})
