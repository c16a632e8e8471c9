import { Database } from 'bun:sqlite'
import { accessSync, closeSync, constants, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { carryBlocksInto } from '../modules/metrics/metrics.block.log'
import { copyRecordsInto, readRecords, type StoredRecord } from '../modules/metrics/metrics.hot.records'

/**
 * One backup file holds everything an instance needs to come back: the database, and the
 * data dir's secrets in a table of their own, so it stays one SQLite file `sqlite3` can open.
 * Without the JWT secret a restored instance would sign everyone out; without secret.key the
 * stored provider keys could not be read.
 */
export const BACKUP_TABLE = 'vigil_backup'
/** the layout of BACKUP_TABLE; a restore refuses a format it does not know */
export const BACKUP_FORMAT = '1'

export class BackupError extends Error {}

export interface BackupSecret {
  /** the file's name in the data dir, e.g. jwt-secret */
  name: string
  value: string
}

export interface BackupOptions {
  /** the live database file */
  source: string
  target: string
  /** replace an existing target (only once the new copy is complete) */
  force: boolean
  secrets: BackupSecret[]
  version: string
  now: number
}

/** Refuses an output directory that is missing or read-only, before any work is done. */
export function checkOutputDir(target: string): void {
  const dir = dirname(resolve(target))
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BackupError(`the output directory ${dir} does not exist; create it or choose another --out`)
  try {
    accessSync(dir, constants.W_OK)
  } catch {
    throw new BackupError(`the output directory ${dir} is not writable; choose another --out or fix its permissions`)
  }
}

/**
 * A consistent snapshot with VACUUM INTO (safe while the service runs: WAL readers do not
 * block it), then the secrets added to the copy. It is 0600 from its first byte: written into
 * a temp file made 0600 beside the target and put in place whole, so a failed backup never
 * leaves a partial file under the target's name.
 */
export function writeBackup(opts: BackupOptions): void {
  const target = resolve(opts.target)
  checkOutputDir(target)
  const exists = () => new BackupError(`${target} exists; choose a new file name, or add --force to replace it`)
  if (!opts.force && existsSync(target)) throw exists()
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`)
  closeSync(openSync(tmp, 'wx', 0o600)) // VACUUM INTO writes into an empty existing file, keeping its mode
  try {
    // the newest samples' records live in files beside the database: read before the snapshot, so
    // any whose sample the snapshot does not hold sealed is still in them (see docs/storage.md)
    const hot = readRecords(opts.source)
    snapshot(opts.source, tmp)
    carryHotRecords(tmp, hot)
    carryBlocks(tmp, opts.source)
    addSecrets(tmp, opts)
    const fd = openSync(tmp, 'r')
    try {
      fsyncSync(fd) // the copy is on disk before its name says it is complete
    } finally {
      closeSync(fd)
    }
    if (opts.force) renameSync(tmp, target)
    else placeNew(tmp, target)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw exists()
    throw err
  } finally {
    rmSync(tmp, { force: true })
  }
}

function snapshot(source: string, tmp: string) {
  let db: Database
  try {
    db = new Database(source, { readwrite: true, create: false })
  } catch (err) {
    throw new BackupError(`cannot open the database ${source}: ${(err as Error).message}`)
  }
  try {
    db.run('PRAGMA busy_timeout = 5000')
    db.run('VACUUM INTO ?', [tmp])
  } catch (err) {
    throw new BackupError(`cannot write the backup: ${(err as Error).message}`)
  } finally {
    db.close()
  }
}

/** Into the copy's metric_hot tables, which a start of the restored instance moves back into files. */
function carryHotRecords(tmp: string, records: StoredRecord[]) {
  if (!records.length) return
  const db = new Database(tmp, { readwrite: true, create: false })
  try {
    copyRecordsInto(db, records)
  } finally {
    db.close()
  }
}

/** Into the copy's metric_blocks and metric_nested, as BLOBs: the sealed blocks' bytes live in files beside the source (metrics.block.log.ts). */
function carryBlocks(tmp: string, source: string) {
  const db = new Database(tmp, { readwrite: true, create: false })
  try {
    carryBlocksInto(db, source)
  } finally {
    db.close()
  }
}

function addSecrets(tmp: string, opts: BackupOptions) {
  const db = new Database(tmp, { readwrite: true, create: false })
  try {
    // a rollback journal: the backup is one file, with no -wal beside it to lose on a copy
    db.run('PRAGMA journal_mode = DELETE')
    db.run(
      `CREATE TABLE ${BACKUP_TABLE} (kind TEXT NOT NULL CHECK (kind IN ('meta', 'secret')), name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, name))`,
    )
    const insert = db.prepare(`INSERT INTO ${BACKUP_TABLE} (kind, name, value) VALUES (?, ?, ?)`)
    db.transaction(() => {
      insert.run('meta', 'format', BACKUP_FORMAT)
      insert.run('meta', 'vigil_version', opts.version)
      insert.run('meta', 'created_at', new Date(opts.now).toISOString())
      for (const s of opts.secrets) insert.run('secret', s.name, s.value)
    })()
    insert.finalize()
  } finally {
    db.close()
  }
}

/** Puts tmp at target unless target exists; a hard link makes that one atomic step where the filesystem has them. */
function placeNew(tmp: string, target: string) {
  try {
    linkSync(tmp, target)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err
    if (existsSync(target)) throw Object.assign(new Error('exists'), { code: 'EEXIST' }) // FAT and the like: check, then rename
    renameSync(tmp, target)
  }
}

/** A UTC time for file names that sort by age: 20260314-034700. */
export const fileStamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
