import type { Database } from 'bun:sqlite'
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { storageHealth, type StorageHealth } from './storage-health'
import { newBackupStatus, type BackupStatus } from './backup-schedule'
import { PreparedOnUse } from './prepared-on-use'

/**
 * The query builder, without the relational schema: nothing uses `db.query.*`, and handing
 * drizzle the schema made every table (the metric tiers alone are ~250 columns) get built and
 * walked at start-up. Stores import the tables they query; ./schema.ts stays drizzle-kit's list.
 */
export type Db = BunSQLiteDatabase

export interface DbHandle {
  sqlite: Database
  db: Db
  /** the last storage fault (damaged file, full disk) the service ran into, for /health */
  health: StorageHealth
  /** how the scheduled backups of this file went, for the admin stats */
  backups: BackupStatus
  /**
   * Closes for good; never throws. What could not be done (PRAGMA optimize or the final
   * checkpoint on a full disk) goes to `warn`: every acknowledged write is already in the WAL,
   * which the next open replays.
   */
  close(warn?: (what: string, err: Error) => void): void
}

export type Synchronous = 'NORMAL' | 'FULL'

/**
 * Opens the one SQLite file with the pragmas every connection needs.
 *
 * Durability: WAL with synchronous=NORMAL (the default) loses nothing a committed transaction
 * wrote when the *process* dies (kill -9, crash): the WAL is in the OS page cache and is
 * replayed on the next open. Only an OS crash or power cut can drop the last transactions
 * (the file is never corrupted). synchronous=FULL adds an fsync per commit to cover that too.
 */
export function openDatabase(path: string, opts: { synchronous?: Synchronous; create?: boolean } = {}): DbHandle {
  if (path !== ':memory:') ownerOnly(path, opts.create ?? true)
  // statements are compiled when first run (prepared-on-use.ts): an idle hub holds only those it ran
  const sqlite: Database = new PreparedOnUse(path, { create: opts.create ?? true, readwrite: true, strict: true })
  // Must precede the first table; on an existing file it is a no-op, which is what we want.
  sqlite.run('PRAGMA auto_vacuum = INCREMENTAL')
  if (path !== ':memory:') sqlite.run('PRAGMA journal_mode = WAL')
  sqlite.run(`PRAGMA synchronous = ${opts.synchronous ?? 'NORMAL'}`)
  sqlite.run('PRAGMA busy_timeout = 5000')
  sqlite.run('PRAGMA foreign_keys = ON')
  sqlite.run('PRAGMA temp_store = MEMORY')
  sqlite.run('PRAGMA cache_size = -4000') // 4 MB page cache: the hot index pages of ingest and reads fit; more only inflates RSS
  const db = drizzle({ client: sqlite })
  return {
    sqlite,
    db,
    health: storageHealth(),
    backups: newBackupStatus(),
    close(warn = () => {}) {
      try {
        sqlite.run('PRAGMA optimize')
      } catch (err) {
        warn('PRAGMA optimize failed', err as Error)
      }
      // close(true) finalizes the prepared statements the writer and the jobs keep; plain close()
      // would leave the connection open until they are collected, which at exit is never: no
      // final checkpoint, and a WAL left behind that the next start reads as an unclean stop
      try {
        sqlite.close(true)
      } catch (err) {
        warn('closing the database failed (the WAL stays and is replayed on the next start)', err as Error)
        try {
          sqlite.close(false)
        } catch {}
      }
    },
  }
}

/**
 * The database holds password hashes, key digests and encrypted provider keys: readable by its
 * owner only (0600), whatever the umask or the data directory's mode. Made empty with that mode
 * before SQLite opens it, and tightened when it exists (a file from an older version). SQLite
 * gives its -wal and -shm files the database file's mode; ones left from before are tightened too.
 */
function ownerOnly(path: string, create: boolean) {
  if (create && !existsSync(path)) closeSync(openSync(path, 'a', 0o600))
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600)
    } catch {
      // missing, or owned by someone else: SQLite's own open reports what matters
    }
  }
}

/** `PRAGMA quick_check`: null when the file is sound, else what SQLite reports (a list, or an error it stopped on). */
export function quickCheck(sqlite: Database): string | null {
  try {
    const rows = sqlite.query<{ quick_check: string }, []>('PRAGMA quick_check').all()
    const problems = rows.map((r) => r.quick_check).filter((r) => r !== 'ok')
    return problems.length ? problems.join('; ') : null
  } catch (err) {
    return (err as Error).message
  }
}
