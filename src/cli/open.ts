import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Config } from '../config'
import { openDatabase, quickCheck, type DbHandle } from '../db/connection'
import { walFileBytes } from '../db/wal'
import { migrate, migrationStatus } from '../db/migrate'
import { describeHolder, lockDataDir, lockHolder, type DataDirLock } from '../db/lock'
import type { Logger } from '../lib/logger'
import { VERSION } from '../version'
import { databasePath, ensureDataDir } from '../db/data-dir'
import { StartupError } from './errors'

/**
 * The data dir's lock for a command that must be the only one on it (serve, migrate); `why`
 * ends the refusal, e.g. "stop the service first".
 */
export function lockForService(config: Config, now: number, why: string): DataDirLock {
  const dir = ensureDataDir(config)
  const attempt = lockDataDir(dir, { pid: process.pid, started_at: new Date(now).toISOString(), version: VERSION })
  if (!attempt.ok) throw new StartupError(`the data directory ${dir} is in use by a running vigil (${describeHolder(attempt.holder)}); ${why}`)
  return attempt.lock
}

/** Read-only commands never create a database: a wrong --data-dir must not look like an empty instance. */
export function requireDatabase(config: Config): string {
  const path = databasePath(config)
  if (!existsSync(path)) throw new StartupError(`no database at ${path} (set --data-dir or VIGIL_DATA_DIR)`)
  return path
}

/**
 * For the commands that work next to a running service (admin): the database as it is. A WAL
 * left while a live service holds the lock is that service's, not a crash; and a schema the
 * service has not migrated is left for `vigil migrate` once it is stopped.
 */
export function openBesideService(config: Config, logger: Logger, now: number): DbHandle {
  const holder = lockHolder(resolve(config.dataDir))
  if (holder === null) return openAndMigrate(config, logger, now)
  const path = databasePath(config)
  const db = openChecked(path, config, logger, false)
  if (migrationStatus(db.sqlite).some((m) => !m.applied)) {
    db.sqlite.close()
    throw new StartupError(
      `the database needs migrations this vigil (${VERSION}) brings, and a service is running on it (${describeHolder(holder)}): stop the service and run "vigil migrate"`,
    )
  }
  return db
}

/**
 * Whether the last run stopped without closing the database: a clean stop checkpoints the WAL
 * and removes it, a crash, kill or power cut leaves it behind.
 */
const stoppedUncleanly = (path: string) => walFileBytes(path) > 0

/**
 * Opens the data dir's database, checks it, and brings its schema up to date. The integrity
 * check reads the whole file (0.6 s for 1 M samples on the dev machine, minutes for a large
 * database on an SD card), so it runs only after an unclean stop, when damage is possible.
 */
export function openAndMigrate(config: Config, logger: Logger, now: number): DbHandle {
  ensureDataDir(config)
  const path = databasePath(config)
  const db = openChecked(path, config, logger, stoppedUncleanly(path))
  try {
    const applied = migrate(db.sqlite, now)
    if (applied.length) logger.info('migrations applied', { migrations: applied })
  } catch (err) {
    db.sqlite.close()
    throw new StartupError((err as Error).message)
  }
  return db
}

function openChecked(path: string, config: Config, logger: Logger, check: boolean): DbHandle {
  let db: DbHandle
  try {
    db = openDatabase(path, { synchronous: config.synchronous })
  } catch (err) {
    throw new StartupError(`cannot open the database ${path} (${(err as Error).message}); restore a backup (vigil backup) or move the file away`)
  }
  const problem = check ? timedQuickCheck(db, logger) : null
  if (problem) {
    db.sqlite.close()
    throw new StartupError(`the database ${path} failed its integrity check (${problem}); restore a backup (vigil backup) or move the file away`)
  }
  return db
}

function timedQuickCheck(db: DbHandle, logger: Logger): string | null {
  const started = performance.now()
  const problem = quickCheck(db.sqlite)
  logger.info('integrity check after an unclean stop', { ok: problem === null, ms: Math.round(performance.now() - started) })
  return problem
}
