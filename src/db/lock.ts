import { Database } from 'bun:sqlite'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * One service per data dir. Two would run every scheduled job twice and race each other's
 * writes, so `serve` (and `migrate`) hold an exclusive lock on `vigil.lock` for as long as they run.
 *
 * The lock is SQLite's own: the file is a tiny database opened with locking_mode=EXCLUSIVE,
 * and after its first write SQLite keeps an fcntl write lock on it until the connection closes.
 * The kernel drops that lock when the process ends however it ends (kill -9, OOM, power cut),
 * so a lock is never left stale. Who holds it (pid, start time) sits in `vigil.lock.info`: the
 * lock file itself must never be opened by anything but SQLite, because closing any other
 * descriptor of it would drop this process's fcntl locks (POSIX).
 *
 * fcntl locks are not reliable on some network filesystems (NFS without lockd): keep the data
 * dir on a local disk.
 */
export interface LockHolder {
  pid: number
  started_at: string
  version: string
}

export interface DataDirLock {
  release(): void
}

export type LockAttempt = { ok: true; lock: DataDirLock } | { ok: false; holder: LockHolder | null }

const LOCK_FILE = 'vigil.lock'
const INFO_FILE = 'vigil.lock.info'
/** a probe (another command) holds the lock for a moment: wait that out rather than refuse */
const WAIT_MS = 1_000

/** Locks held by this process. A Database nothing refers to is closed when collected, which would release the lock. */
const held = new Set<Database>()

const isBusy = (err: unknown) => /SQLITE_BUSY|SQLITE_LOCKED/.test(String((err as { code?: string }).code)) || /locked/.test((err as Error).message)

/** Takes the data dir's lock, or says who holds it. Errors other than "held" (a read-only dir…) are thrown. */
export function lockDataDir(dir: string, holder: LockHolder): LockAttempt {
  const sqlite = new Database(join(dir, LOCK_FILE), { create: true, readwrite: true })
  try {
    sqlite.run('PRAGMA locking_mode = EXCLUSIVE')
    sqlite.run('PRAGMA journal_mode = MEMORY') // no journal file beside it
    sqlite.run(`PRAGMA busy_timeout = ${WAIT_MS}`)
    sqlite.run('BEGIN EXCLUSIVE')
    sqlite.run('CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY)')
    sqlite.run('COMMIT') // in exclusive locking mode the write lock outlives the transaction
  } catch (err) {
    sqlite.close()
    if (isBusy(err)) return { ok: false, holder: readHolder(dir) }
    throw err
  }
  held.add(sqlite)
  writeFileSync(join(dir, INFO_FILE), `${JSON.stringify(holder)}\n`)
  return {
    ok: true,
    lock: {
      release() {
        if (!held.delete(sqlite)) return
        rmSync(join(dir, INFO_FILE), { force: true })
        sqlite.close()
      },
    },
  }
}

/**
 * Who holds the data dir's lock right now, without taking it: null when nobody does. Reads as
 * a plain reader would (a shared lock for one statement), which the holder's write lock refuses.
 */
export function lockHolder(dir: string): LockHolder | 'unknown' | null {
  const path = join(dir, LOCK_FILE)
  if (!existsSync(path)) return null // a service creates it when it starts
  const sqlite = new Database(path, { readonly: true })
  try {
    sqlite.query('SELECT count(*) FROM sqlite_master').get()
    return null
  } catch (err) {
    if (isBusy(err)) return readHolder(dir) ?? 'unknown'
    throw err
  } finally {
    sqlite.close()
  }
}

function readHolder(dir: string): LockHolder | null {
  try {
    return JSON.parse(readFileSync(join(dir, INFO_FILE), 'utf8')) as LockHolder
  } catch {
    return null // the holder is between taking the lock and writing who it is
  }
}

/** "pid 1234, started 2025-01-02T03:04:05.000Z" */
export const describeHolder = (h: LockHolder | 'unknown' | null) =>
  h && h !== 'unknown' ? `pid ${h.pid}, vigil ${h.version}, started ${h.started_at}` : 'a process that did not say who it is'
