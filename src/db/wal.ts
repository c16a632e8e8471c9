import type { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'

export type CheckpointMode = 'PASSIVE' | 'TRUNCATE'

export interface CheckpointResult {
  /** 1 when the checkpoint could not run to its end (another one running, or a writer in the way) */
  busy: number
  /** frames in the WAL when it ran */
  log: number
  /** of those, frames now copied into the database */
  checkpointed: number
  /** how long it took, in milliseconds */
  ms: number
  /** the WAL file's size afterwards */
  walBytes: number
}

/** One checkpoint on this connection, the same on the checkpoint thread and inline. */
export function checkpoint(sqlite: Database, mode: CheckpointMode): CheckpointResult {
  const started = performance.now()
  const r = sqlite.query<{ busy: number; log: number; checkpointed: number }, []>(`PRAGMA wal_checkpoint(${mode})`).get()!
  return { busy: r.busy, log: r.log, checkpointed: r.checkpointed, ms: performance.now() - started, walBytes: walFileBytes(sqlite.filename) }
}

/** The size of a database's WAL file; 0 when there is none. */
export function walFileBytes(dbPath: string): number {
  try {
    return statSync(`${dbPath}-wal`).size
  } catch {
    return 0
  }
}
