import { expect } from 'bun:test'
import { Database } from 'bun:sqlite'
import { blockLogDir } from '../../src/modules/metrics/metrics.block.log'
import { createHotLog } from '../../src/modules/metrics/metrics.hot.log'
import { fileSegments } from '../../src/modules/metrics/metrics.segment-files'

/** The blocks of the index whose bytes or minutes are not whole in their files (length and CRC-32 checked). */
export function unreadableBlocks(db: Database, path: string): number {
  const log = createHotLog(fileSegments(blockLogDir(path), true), { sync: false, readOnly: true })
  let bad = 0
  try {
    for (const b of db
      .query<{ file: number; at: number; length: number; nested_length: number }, []>('SELECT file, at, length, nested_length FROM metric_block_index')
      .all()) {
      try {
        if (!log.readChecked(b.file, b.at, b.length) || !log.readChecked(b.file, b.at + 8 + b.length, b.nested_length)) bad++
      } catch {
        bad++ // its file is gone
      }
    }
  } finally {
    log.close()
  }
  return bad
}

const SEALED_BIT = 4
const BLOCK_MS = 600_000

/**
 * What must hold in a hub's database file at any moment, checked with the hub dead (after a kill):
 * the file is whole, every sealed row has its block (its nested texts live only there), and every
 * block the index points to is whole in its file, and so are its minutes.
 */
export function expectSealedWhole(path: string) {
  const db = new Database(path)
  try {
    expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
    const orphanRows = db
      .query<{ n: number }, []>(
        `SELECT count(*) AS n FROM metric_samples s WHERE (s.kinds & ${SEALED_BIT}) != 0 AND NOT EXISTS
           (SELECT 1 FROM metric_block_index b WHERE b.device_seq = s.device_seq AND b.start = s.ts - s.ts % ${BLOCK_MS})`,
      )
      .get()!.n
    expect(orphanRows).toBe(0)
    expect(unreadableBlocks(db, path)).toBe(0)
  } finally {
    db.close()
  }
}
