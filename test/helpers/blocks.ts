import type { Database } from 'bun:sqlite'
import { blockLogDir } from '../../src/modules/metrics/metrics.block.log'
import { createHotLog, fileSegments } from '../../src/modules/metrics/metrics.hot.log'

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
