import { Database } from 'bun:sqlite'
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BACKUP_FORMAT, BACKUP_TABLE, BackupError, type BackupSecret } from './backup'
import { quickCheck } from './connection'
import { MIGRATIONS } from './migrations.gen'

export interface BackupInfo {
  version: string
  createdAt: string
  secrets: BackupSecret[]
}

const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

const tableExists = (db: Database, name: string) => db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null

/**
 * Checks a file before anything in the data dir is touched: a sound SQLite file that `vigil
 * backup` wrote (the migrations ledger and the backup table), in a format this version reads,
 * and not from a newer Vigil (its schema would be unknown here).
 */
export function inspectBackup(file: string): BackupInfo {
  if (!existsSync(file) || !statSync(file).isFile())
    throw new BackupError(`${file} does not exist or is not a file; give the path of a file "vigil backup" wrote`)
  let db: Database
  try {
    db = new Database(file, { readonly: true })
  } catch (err) {
    throw new BackupError(`cannot open ${file}: ${(err as Error).message}`)
  }
  try {
    const problem = quickCheck(db)
    if (problem) throw new BackupError(`${file} is not a sound SQLite database (${problem}); choose another backup`)
    if (!tableExists(db, '__vigil_migrations'))
      throw new BackupError(`${file} is not a Vigil database (no migrations ledger); choose a file "vigil backup" wrote`)
    if (!tableExists(db, BACKUP_TABLE)) {
      throw new BackupError(`${file} is a Vigil database but not a backup (no ${BACKUP_TABLE} table, so no secrets): make one with "vigil backup --out FILE"`)
    }
    const rows = db.query<{ kind: string; name: string; value: string }, []>(`SELECT kind, name, value FROM ${BACKUP_TABLE}`).all()
    const meta = new Map(rows.filter((r) => r.kind === 'meta').map((r) => [r.name, r.value]))
    const version = meta.get('vigil_version') ?? 'unknown'
    if (meta.get('format') !== BACKUP_FORMAT)
      throw new BackupError(
        `${file} was written by vigil ${version} in a backup format this version does not read; restore it with that version or a newer one`,
      )
    const known = new Set(MIGRATIONS.map((m) => m.tag))
    const newer = db
      .query<{ tag: string }, []>('SELECT tag FROM __vigil_migrations')
      .all()
      .filter((r) => !known.has(r.tag))
    if (newer.length)
      throw new BackupError(
        `${file} was written by vigil ${version}, which is newer than this one (its database has migrations this version does not know); restore it with vigil ${version} or newer`,
      )
    const secrets = rows.filter((r) => r.kind === 'secret').map((r) => ({ name: r.name, value: r.value }))
    // each becomes a file in the data dir: a name with a path in it must not write elsewhere
    const odd = secrets.find((s) => !SECRET_NAME.test(s.name))
    if (odd) throw new BackupError(`${file} names a secret "${odd.name}" that is not a plain file name; it was not written by "vigil backup"`)
    return { version, createdAt: meta.get('created_at') ?? 'unknown', secrets }
  } finally {
    db.close()
  }
}

export interface RestoreResult {
  info: BackupInfo
  /** where the data dir's previous database and secrets went, or null when there was nothing */
  asideDir: string | null
  movedAside: string[]
}

/**
 * Puts a backup in place in a data dir nobody is using (the caller holds its lock). The new
 * database is prepared beside the old one first, so a failure up to the swap leaves the data dir
 * as it was; the old files are then moved, not deleted, into `asideName`.
 */
export function restoreBackup(file: string, dataDir: string, asideName: string): RestoreResult {
  const info = inspectBackup(file)
  const dbPath = join(dataDir, 'vigil.db')
  const staged = join(dataDir, `.vigil.db.restoring.${process.pid}`)
  rmSync(staged, { force: true })
  copyFileSync(file, staged)
  chmodSync(staged, 0o600)
  try {
    const db = new Database(staged, { readwrite: true, create: false })
    try {
      // what only a backup needs: the secrets go back to their files, not into the live database
      db.run(`DROP TABLE ${BACKUP_TABLE}`)
    } finally {
      db.close()
    }
    // vigil.db-hot, vigil.db-blocks: the newest samples' records and the sealed blocks of the database
    // being replaced (the backup carries its own in the file)
    const current = [
      'vigil.db',
      'vigil.db-wal',
      'vigil.db-shm',
      'vigil.db-hot',
      'vigil.db-blocks',
      ...info.secrets.map((s) => s.name),
      'jwt-secret',
      'secret.key',
    ]
    const present = [...new Set(current)].filter((name) => existsSync(join(dataDir, name)))
    let asideDir: string | null = null
    if (present.length) {
      asideDir = join(dataDir, asideName)
      mkdirSync(asideDir, { mode: 0o700 })
      for (const name of present) renameSync(join(dataDir, name), join(asideDir, name))
    }
    renameSync(staged, dbPath)
    for (const s of info.secrets) writeFileSync(join(dataDir, s.name), s.value, { mode: 0o600, flag: 'wx' })
    return { info, asideDir, movedAside: present }
  } finally {
    rmSync(staged, { force: true })
  }
}
