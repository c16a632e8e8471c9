import type { Database } from 'bun:sqlite'
import { closeSync, openSync, readSync, statSync } from 'node:fs'
import { endianness } from 'node:os'

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

/**
 * The bytes of WAL written since it last started over, read from the wal-index header in the
 * `-shm` file every connection to the database shares (SQLite's documented WAL format: the
 * header's two copies at offsets 0 and 48, each with the page size at 14 and the last valid
 * frame at 16, in the machine's byte order). The WAL file itself keeps its largest size until
 * truncated, so its size cannot tell. Null when there is no header to read, or a writer was
 * changing it mid-read (the two copies differ).
 */
export function walInUseBytes(dbPath: string): number | null {
  const fd = shmDescriptor(`${dbPath}-shm`)
  if (fd === null) return null
  const header = new Uint8Array(WAL_INDEX_HEADER * 2)
  if (readSync(fd, header, 0, header.length, 0) < header.length) return null
  for (let i = 0; i < WAL_INDEX_HEADER; i++) if (header[i] !== header[WAL_INDEX_HEADER + i]) return null
  const view = new DataView(header.buffer)
  if (view.getUint8(12) !== 1) return null // not initialised
  const le = endianness() === 'LE'
  const szPage = view.getUint16(14, le)
  const pageSize = szPage === 1 ? 65_536 : szPage
  const frames = view.getUint32(16, le)
  return frames === 0 ? 0 : WAL_FILE_HEADER + frames * (WAL_FRAME_HEADER + pageSize)
}

/**
 * The `-shm` files read, each by a descriptor kept open for as long as the file is there.
 * Closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's
 * own included: another process opening the database (the sqlite3 shell, `vigil backup`) then
 * took itself for the first, reset the wal-index, and the hub, whose mapping of it was cut
 * short, died of a bus error (test/db/wal.shm.test.ts).
 */
const shmFiles = new Map<string, { fd: number; ino: number }>()

function shmDescriptor(path: string): number | null {
  let ino: number
  try {
    ino = statSync(path).ino
  } catch {
    return null
  }
  const open = shmFiles.get(path)
  if (open?.ino === ino) return open.fd
  // SQLite made the file anew, which it does only once no connection, of any process, used the
  // old one: no lock of this process is on it to lose
  if (open) closeSync(open.fd)
  shmFiles.delete(path)
  try {
    const fd = openSync(path, 'r')
    shmFiles.set(path, { fd, ino })
    return fd
  } catch {
    return null
  }
}

/** sizes in SQLite's WAL format (https://sqlite.org/walformat.html) */
const WAL_INDEX_HEADER = 48
const WAL_FILE_HEADER = 32
const WAL_FRAME_HEADER = 24
