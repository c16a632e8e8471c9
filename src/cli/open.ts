import type { Config } from '../config'
import { openDatabase, quickCheck, type DbHandle } from '../db/connection'
import { migrate } from '../db/migrate'
import type { Logger } from '../lib/logger'
import { databasePath, ensureDataDir } from './data-dir'

export class StartupError extends Error {}

/** Opens the data dir's database, checks it, and brings its schema up to date. */
export function openAndMigrate(config: Config, logger: Logger, now: number): DbHandle {
  ensureDataDir(config)
  const path = databasePath(config)
  const db = openDatabase(path, { synchronous: config.synchronous })
  const problem = quickCheck(db.sqlite)
  if (problem) {
    db.sqlite.close()
    throw new StartupError(`the database ${path} failed its integrity check (${problem}); restore a backup (vigil backup) or move the file away`)
  }
  try {
    const applied = migrate(db.sqlite, now)
    if (applied.length) logger.info('migrations applied', { migrations: applied })
  } catch (err) {
    db.sqlite.close()
    throw new StartupError((err as Error).message)
  }
  return db
}
