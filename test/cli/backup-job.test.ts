import { describe, expect, test } from 'bun:test'
import { readdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { backupJobs } from '../../src/composition/backups'
import { openAndMigrate } from '../../src/cli/open'
import { testConfig, type Config } from '../../src/config'
import { backupStats } from '../../src/db/backup-schedule'
import { manualClock } from '../../src/lib/clock'
import { createLogger, memoryLogger } from '../../src/lib/logger'
import { testApp } from '../helpers/app'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-backup-job-')
const quiet = createLogger({ level: 'error', format: 'json', write: () => {} })

function live(backup: Partial<Config['backup']> = {}) {
  const dataDir = tempDir()
  const config = testConfig({ dataDir, backup: { ...testConfig().backup, ...backup } })
  const db = openAndMigrate(config, quiet, 1)
  writeFileSync(join(dataDir, 'jwt-secret'), 'j'.repeat(48), { mode: 0o600 })
  const clock = manualClock(Date.parse('2026-03-14T03:47:00Z'))
  const { logger, lines } = memoryLogger()
  const [job] = backupJobs({ config, db, clock, logger })
  return { dataDir, config, db, clock, lines, job: job! }
}

describe('scheduled backups', () => {
  test('one job in the job list when the database is a file, on the configured cron; none when off', () => {
    const { db, config } = live()
    const app = testApp({ db, config })
    expect(app.jobs.find((j) => j.name === 'backups.scheduled')?.cron).toBe('0 47 3 * * *')
    const off = live({ schedule: null })
    expect(testApp({ db: off.db, config: off.config }).jobs.some((j) => j.name === 'backups.scheduled')).toBe(false)
    db.close()
    off.db.close()
  })

  test('writes vigil-YYYYMMDD-HHMMSS.db into <data dir>/backups and keeps the newest N', () => {
    const { dataDir, db, clock, job } = live({ keep: 3 })
    writeFileSync(join(dataDir, 'backups-note.txt'), '')
    for (let day = 0; day < 5; day++) {
      job.run()
      clock.advance(86_400_000)
    }
    const dir = join(dataDir, 'backups')
    expect(readdirSync(dir).sort()).toEqual(['vigil-20260316-034700.db', 'vigil-20260317-034700.db', 'vigil-20260318-034700.db'])
    expect(backupStats(db.backups)).toEqual({ backup_last_ok_at: Date.parse('2026-03-18T03:47:00Z') / 1000, backup_failures: 0 })
    db.close()
  })

  test('a failure is logged at error level, counted for the admin stats, and deletes nothing', async () => {
    const backups = tempDir()
    const { dataDir, db, lines, job, clock } = live({ dir: backups, keep: 1 })
    job.run()
    expect(readdirSync(backups)).toEqual(['vigil-20260314-034700.db'])
    // the database file is gone from under the service (a lost disk, a wrong mount)
    renameSync(join(dataDir, 'vigil.db'), join(dataDir, 'moved.db'))
    clock.advance(86_400_000)
    job.run()
    job.run()
    expect(readdirSync(backups)).toEqual(['vigil-20260314-034700.db'])
    const failed = lines.filter((l) => l.includes('scheduled backup failed'))
    expect(failed).toHaveLength(2)
    expect(JSON.parse(failed[0]!)).toMatchObject({ level: 'error', error: expect.stringContaining('cannot open the database') })
    expect(backupStats(db.backups)).toEqual({ backup_last_ok_at: Date.parse('2026-03-14T03:47:00Z') / 1000, backup_failures: 2 })
    const app = testApp({ db, config: testConfig() })
    const stats = await Promise.all(app.modules.admin.stats.map(async (s) => s()))
    expect(stats.some((s) => (s as Record<string, number>).backup_failures === 2)).toBe(true)
    db.close()
  })
})
