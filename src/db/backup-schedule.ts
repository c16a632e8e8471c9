import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import { fileStamp, writeBackup, type BackupSecret } from './backup'

const BACKUP_NAME = /^vigil-\d{8}-\d{6}\.db$/

/** How the last scheduled backups went, for the operator's GET /v1/admin/stats. */
export interface BackupStatus {
  lastOkAt: number | null
  lastError: string | null
  /** failed runs since the last good one */
  failures: number
}

export interface ScheduledBackupDeps {
  /** the live database file */
  source: string
  /** where the files go; made (0700) when missing */
  dir: string
  keep: number
  /** read at each run: the data dir's secret files as they are then */
  secrets: () => BackupSecret[]
  /** variables set in the environment instead of secret files: not in the backup */
  secretsFromEnv: string[]
  version: string
  clock: Clock
  logger: Logger
  status: BackupStatus
}

export const newBackupStatus = (): BackupStatus => ({ lastOkAt: null, lastError: null, failures: 0 })

/** The backups directory: VIGIL_BACKUP_DIR, else `backups` beside the database. */
export const backupDir = (configured: string | null, databaseFile: string) => resolve(configured ?? join(dirname(databaseFile), 'backups'))

/**
 * One scheduled run: `vigil-YYYYMMDD-HHMMSS.db` (UTC), then the oldest beyond `keep` deleted;
 * only after a good backup, so failures never eat into the ones that exist. A failure is
 * logged at error level and kept for the admin stats; it is not thrown (the next run retries).
 *
 * VACUUM INTO runs on the event loop: ~1 s per few hundred MB here, once a day by default.
 */
export function runScheduledBackup(deps: ScheduledBackupDeps): void {
  const now = deps.clock.now()
  const target = join(deps.dir, `vigil-${fileStamp(now)}.db`)
  try {
    mkdirSync(deps.dir, { recursive: true, mode: 0o700 })
    const started = performance.now()
    writeBackup({ source: deps.source, target, force: false, secrets: deps.secrets(), version: deps.version, now })
    const removed = prune(deps.dir, deps.keep)
    deps.status.lastOkAt = now
    deps.status.lastError = null
    deps.status.failures = 0
    deps.logger.info('backup written', { file: target, ms: Math.round(performance.now() - started), removed, not_included: deps.secretsFromEnv })
  } catch (err) {
    deps.status.lastError = (err as Error).message
    deps.status.failures++
    deps.logger.error('scheduled backup failed', { file: target, error: (err as Error).message, failures: deps.status.failures })
  }
}

/** Deletes the oldest backups beyond `keep` (names sort by time); other files in the directory are left alone. */
function prune(dir: string, keep: number): string[] {
  const old = readdirSync(dir)
    .filter((f) => BACKUP_NAME.test(f))
    .sort()
    .slice(0, -keep)
  for (const f of old) rmSync(join(dir, f), { force: true })
  return old
}

/** Numbers for GET /v1/admin/stats: the last good backup (Unix seconds, 0 = none yet) and the failures since. */
export const backupStats = (status: BackupStatus) => ({
  backup_last_ok_at: status.lastOkAt === null ? 0 : Math.floor(status.lastOkAt / 1000),
  backup_failures: status.failures,
})
