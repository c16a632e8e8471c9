import { describe, expect, test } from 'bun:test'
import { ConfigError, DEFAULT_BACKUP_SCHEDULE, loadConfig } from '../src/config'

describe('scheduled backup settings', () => {
  test('on by default: daily at 03:47 UTC, into the data dir, the last 7 kept', () => {
    expect(loadConfig({}).backup).toEqual({ schedule: DEFAULT_BACKUP_SCHEDULE, dir: null, keep: 7 })
    expect(DEFAULT_BACKUP_SCHEDULE).toBe('0 47 3 * * *')
  })

  test('off disables; a five-field cron gets its seconds; six fields are kept', () => {
    expect(loadConfig({ VIGIL_BACKUP_SCHEDULE: 'off' }).backup.schedule).toBeNull()
    expect(loadConfig({ VIGIL_BACKUP_SCHEDULE: ' OFF ' }).backup.schedule).toBeNull()
    expect(loadConfig({ VIGIL_BACKUP_SCHEDULE: '30 */6 * * *' }).backup.schedule).toBe('0 30 */6 * * *')
    expect(loadConfig({ VIGIL_BACKUP_SCHEDULE: '15 0 2 * * 0' }).backup.schedule).toBe('15 0 2 * * 0')
  })

  test('directory and count', () => {
    const c = loadConfig({ VIGIL_BACKUP_DIR: ' /srv/backups ', VIGIL_BACKUP_KEEP: '30' })
    expect(c.backup.dir).toBe('/srv/backups')
    expect(c.backup.keep).toBe(30)
  })

  test('bad values are refused with what to write instead', () => {
    for (const bad of ['daily', '* * *', '61 3 * * *', 'off please']) {
      expect(() => loadConfig({ VIGIL_BACKUP_SCHEDULE: bad })).toThrow(ConfigError)
      expect(() => loadConfig({ VIGIL_BACKUP_SCHEDULE: bad })).toThrow(
        /VIGIL_BACKUP_SCHEDULE must be a cron pattern such as "47 3 \* \* \*" \(daily at 03:47 UTC\) or "off"/,
      )
    }
    expect(() => loadConfig({ VIGIL_BACKUP_KEEP: '0' })).toThrow('VIGIL_BACKUP_KEEP must be between 1 and 10000')
  })
})
