import type { Config } from '../config'
import { backupDir, runScheduledBackup } from '../db/backup-schedule'
import type { DbHandle } from '../db/connection'
import type { Job } from '../jobs/scheduler'
import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import { VERSION } from '../version'
import { readDataDirSecrets, secretsFromEnv } from '../db/data-dir'

/**
 * The scheduled-backup job (VIGIL_BACKUP_SCHEDULE), or none when backups are off or the
 * database lives in memory (tests: there is no file to copy).
 */
export function backupJobs(deps: { config: Config; db: DbHandle; clock: Clock; logger: Logger }): Job[] {
  const { config, db } = deps
  const source = db.sqlite.filename
  if (!config.backup.schedule || !source || source === ':memory:') return []
  const run = () =>
    runScheduledBackup({
      source,
      dir: backupDir(config.backup.dir, source),
      keep: config.backup.keep,
      secrets: () => readDataDirSecrets(config.dataDir),
      secretsFromEnv: secretsFromEnv(config),
      version: VERSION,
      clock: deps.clock,
      logger: deps.logger,
      status: db.backups,
    })
  return [{ name: 'backups.scheduled', cron: config.backup.schedule, run }]
}
