import { afterEach, describe, expect, spyOn, test } from 'bun:test'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { main } from '../../src/main'
import { migrateCommand } from '../../src/cli/commands'
import { backupCommand } from '../../src/cli/backup'
import { adminCommand } from '../../src/cli/admin'
import { openAndMigrate, openBesideService } from '../../src/cli/open'
import { testConfig } from '../../src/config'
import { lockDataDir } from '../../src/db/lock'
import { createLogger } from '../../src/lib/logger'
import { VERSION } from '../../src/version'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-cmd-')
const quiet = createLogger({ level: 'error', format: 'json', write: () => {} })
const silentIo = (lines: string[] = []) => ({ readStdin: async () => '', print: (l: string) => void lines.push(l) })

let logged: string[] = []
const log = spyOn(console, 'log').mockImplementation((...a: unknown[]) => void logged.push(a.join(' ')))
afterEach(() => {
  logged = []
  log.mockClear()
})

describe('help and version', () => {
  test('--help and help print the command list; serve --help keeps serve options', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      logged = []
      expect(await main(argv)).toBe(0)
      expect(logged.join('\n')).toContain('Commands:')
    }
    logged = []
    await main(['serve', '--help'])
    expect(logged.join('\n')).toContain('Usage: vigil serve')
    expect(logged.join('\n')).not.toContain('Commands:')
  })

  test('--version, -v and version print the version', async () => {
    for (const argv of [['--version'], ['-v'], ['version']]) {
      logged = []
      expect(await main(argv)).toBe(0)
      expect(logged).toEqual([VERSION])
    }
  })
})

describe('read-only commands on a missing database', () => {
  test('migrate status, admin list and backup say where they looked and create nothing', async () => {
    const dir = join(tempDir(), 'data')
    const config = testConfig({ dataDir: dir })
    const where = /^no database at .*\/data\/vigil\.db \(set --data-dir or VIGIL_DATA_DIR\)$/
    expect(() => migrateCommand(config, 'status')).toThrow(where)
    expect(adminCommand(config, 'list', { passwordStdin: false }, silentIo())).rejects.toThrow(where)
    expect(() => backupCommand(config, join(tempDir(), 'b.db'))).toThrow(where)
    expect(existsSync(dir)).toBe(false)
  })
})

describe('backup', () => {
  const withDb = () => {
    const dir = tempDir()
    const config = testConfig({ dataDir: dir })
    openAndMigrate(config, quiet, 1).close()
    return { dir, config }
  }

  test('a missing output directory is named as such, not as a broken database', () => {
    const { config } = withDb()
    expect(() => backupCommand(config, '/missing-dir/x.db')).toThrow('the output directory /missing-dir does not exist')
  })

  test('is written 0600, keeps an existing file unless --force, and leaves no temp file', () => {
    const { dir, config } = withDb()
    const out = join(tempDir(), 'snap.db')
    backupCommand(config, out)
    expect(statSync(out).mode & 0o777).toBe(0o600)
    writeFileSync(out, 'older backup')
    expect(() => backupCommand(config, out)).toThrow(/exists; choose a new file name, or add --force/)
    backupCommand(config, out, true)
    expect(statSync(out).size).toBeGreaterThan(4096)
    expect(statSync(out).mode & 0o777).toBe(0o600)
    expect(readdirSync(dirname(out))).toEqual(['snap.db'])
    expect(existsSync(join(dir, 'vigil.db'))).toBe(true)
  })
})

describe('next to a running service (the data dir locked)', () => {
  const live = () => {
    const dir = tempDir()
    const config = testConfig({ dataDir: dir })
    const service = openAndMigrate(config, quiet, 1)
    service.sqlite.run("INSERT INTO clients (id, created_at, updated_at) VALUES ('cli_live', 1, 1)") // its WAL is there
    const attempt = lockDataDir(dir, { pid: 4242, started_at: '2025-01-02T03:04:05.000Z', version: '9.9.9' })
    if (!attempt.ok) throw new Error('lock')
    return { dir, config, service, lock: attempt.lock }
  }

  test('migrate refuses and names the holder; migrate status works', () => {
    const l = live()
    expect(() => migrateCommand(l.config, undefined)).toThrow(
      /in use by a running vigil \(pid 4242, vigil 9\.9\.9, started 2025-01-02T03:04:05\.000Z\); stop the service first/,
    )
    expect(migrateCommand(l.config, 'status')).toBe(0)
    expect(logged.some((line) => line.startsWith('applied '))).toBe(true)
    l.lock.release()
    l.service.close()
  })

  test("the service's WAL is not taken for a crash: no whole-file check", () => {
    const l = live()
    const lines: string[] = []
    const logger = createLogger({ level: 'info', format: 'json', write: (line) => void lines.push(line) })
    openBesideService(l.config, logger, 1).sqlite.close()
    expect(lines.filter((line) => line.includes('integrity check'))).toEqual([])
    l.lock.release()
    // the same WAL with nobody holding the lock is an unclean stop
    openBesideService(l.config, logger, 1).sqlite.close()
    expect(lines.filter((line) => line.includes('integrity check'))).toHaveLength(1)
    l.service.close()
  })

  test('admin list works beside it', async () => {
    const l = live()
    const lines: string[] = []
    expect(await adminCommand(l.config, 'list', { passwordStdin: false }, silentIo(lines))).toBe(0)
    expect(lines[0]).toContain('no operators yet')
    l.lock.release()
    l.service.close()
  })
})
