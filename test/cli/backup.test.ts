import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, spyOn, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { backupCommand, restoreCommand } from '../../src/cli/backup'
import { migrateCommand } from '../../src/cli/commands'
import { dataDirSecret } from '../../src/db/data-dir'
import { openAndMigrate } from '../../src/cli/open'
import { testConfig } from '../../src/config'
import { BACKUP_TABLE } from '../../src/db/backup'
import { lockDataDir } from '../../src/db/lock'
import { createLogger } from '../../src/lib/logger'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-backup-')
const quiet = createLogger({ level: 'error', format: 'json', write: () => {} })

let logged: string[] = []
const log = spyOn(console, 'log').mockImplementation((...a: unknown[]) => void logged.push(a.join(' ')))
afterEach(() => {
  logged = []
  log.mockClear()
})

/** A data dir as serve leaves it: a migrated database with one client, and both secret files. */
function instance(overrides: Parameters<typeof testConfig>[0] = {}) {
  const dir = tempDir()
  const config = testConfig({ dataDir: dir, jwtSecret: null, ...overrides })
  const db = openAndMigrate(config, quiet, 1)
  db.sqlite.run("INSERT INTO clients (id, created_at, updated_at) VALUES ('cli_before', 1, 1)")
  db.close()
  dataDirSecret(config, 'jwt-secret')
  dataDirSecret(config, 'secret.key')
  return { dir, config }
}

const clientIds = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return db
      .query<{ id: string }, []>('SELECT id FROM clients ORDER BY id')
      .all()
      .map((r) => r.id)
  } finally {
    db.close()
  }
}

describe('backup', () => {
  test('holds the database and the secrets in one SQLite file, 0600', () => {
    const { dir, config } = instance()
    const out = join(tempDir(), 'b.db')
    expect(backupCommand(config, out)).toBe(0)
    expect(statSync(out).mode & 0o777).toBe(0o600)
    const db = new Database(out, { readonly: true })
    const rows = db.query<{ kind: string; name: string; value: string }, []>(`SELECT kind, name, value FROM ${BACKUP_TABLE}`).all()
    db.close()
    const secrets = Object.fromEntries(rows.filter((r) => r.kind === 'secret').map((r) => [r.name, r.value]))
    expect(secrets).toEqual({ 'jwt-secret': readFileSync(join(dir, 'jwt-secret'), 'utf8'), 'secret.key': readFileSync(join(dir, 'secret.key'), 'utf8') })
    expect(rows.find((r) => r.name === 'vigil_version')).toBeDefined()
    expect(clientIds(out)).toEqual(['cli_before'])
    expect(existsSync(`${out}-wal`)).toBe(false)
  })

  test('says which secrets set in the environment are not in it', () => {
    const { config } = instance({ jwtSecret: 'x'.repeat(40) })
    backupCommand(config, join(tempDir(), 'b.db'))
    expect(logged.join('\n')).toContain('note: VIGIL_JWT_SECRET is set in the environment, so it is not in the backup')
    expect(logged.join('\n')).not.toContain('VIGIL_SECRET_KEY')
  })
})

describe('restore', () => {
  test('puts the database and secrets back, 0600, and keeps the replaced files aside', () => {
    const { dir, config } = instance()
    const out = join(tempDir(), 'b.db')
    backupCommand(config, out)
    const jwt = readFileSync(join(dir, 'jwt-secret'), 'utf8')
    // the instance moves on, and loses its secrets
    const db = openAndMigrate(config, quiet, 2)
    db.sqlite.run("INSERT INTO clients (id, created_at, updated_at) VALUES ('cli_after', 2, 2)")
    db.close()
    writeFileSync(join(dir, 'jwt-secret'), 'y'.repeat(48))
    logged = []

    expect(restoreCommand(config, out)).toBe(0)
    expect(clientIds(join(dir, 'vigil.db'))).toEqual(['cli_before'])
    expect(readFileSync(join(dir, 'jwt-secret'), 'utf8')).toBe(jwt)
    for (const f of ['vigil.db', 'jwt-secret', 'secret.key']) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600)
    const probe = new Database(join(dir, 'vigil.db'), { readonly: true })
    expect(probe.query(`SELECT name FROM sqlite_master WHERE name = '${BACKUP_TABLE}'`).get()).toBeNull()
    probe.close()
    const aside = readdirSync(dir).find((f) => f.startsWith('before-restore-'))!
    expect(aside).toMatch(/^before-restore-\d{8}-\d{6}$/)
    expect(readdirSync(join(dir, aside)).sort()).toEqual(['jwt-secret', 'secret.key', 'vigil.db'])
    expect(clientIds(join(dir, aside, 'vigil.db'))).toEqual(['cli_after', 'cli_before'])
    const said = logged.join('\n')
    expect(said).toContain(`into ${dir}`)
    expect(said).toContain(`kept in ${join(dir, aside)}`)
    expect(said).toContain('next: start the service')
  })

  test('onto an empty data dir (a new machine)', () => {
    const { config } = instance()
    const out = join(tempDir(), 'b.db')
    backupCommand(config, out)
    const fresh = testConfig({ dataDir: join(tempDir(), 'new'), jwtSecret: null })
    expect(restoreCommand(fresh, out)).toBe(0)
    expect(clientIds(join(fresh.dataDir, 'vigil.db'))).toEqual(['cli_before'])
    expect(readdirSync(fresh.dataDir).some((f) => f.startsWith('before-restore-'))).toBe(false)
    expect(migrateCommand(fresh, 'status')).toBe(0)
  })

  test('refuses while the service runs, and touches nothing', () => {
    const { dir, config } = instance()
    const out = join(tempDir(), 'b.db')
    backupCommand(config, out)
    const attempt = lockDataDir(dir, { pid: 4242, started_at: '2025-01-02T03:04:05.000Z', version: '9.9.9' })
    if (!attempt.ok) throw new Error('lock')
    expect(() => restoreCommand(config, out)).toThrow(/in use by a running vigil \(pid 4242.*\); stop the service first/)
    attempt.lock.release()
    expect(readdirSync(dir).some((f) => f.startsWith('before-restore-'))).toBe(false)
  })

  test('refuses what is not a backup, saying what to use instead', () => {
    const { dir, config } = instance()
    const target = testConfig({ dataDir: tempDir(), jwtSecret: null })
    const junk = join(tempDir(), 'junk.db')
    writeFileSync(junk, 'not a database at all, just some text that is long enough to be read as a header')
    expect(() => restoreCommand(target, junk)).toThrow(/not a sound SQLite database|cannot open/)
    expect(() => restoreCommand(target, join(dir, 'missing.db'))).toThrow(/does not exist or is not a file/)
    const other = join(tempDir(), 'other.db')
    new Database(other).run('CREATE TABLE t (x)')
    expect(() => restoreCommand(target, other)).toThrow(/is not a Vigil database/)
    // a live database file is not a backup: it holds no secrets
    expect(() => restoreCommand(target, join(dir, 'vigil.db'))).toThrow(/not a backup .*vigil backup --out FILE/)
    expect(() => restoreCommand(config, undefined)).toThrow(/restore needs the backup file/)
    expect(existsSync(join(target.dataDir, 'vigil.db'))).toBe(false)
  })

  test('refuses a backup from a newer vigil', () => {
    const { config } = instance()
    const out = join(tempDir(), 'b.db')
    backupCommand(config, out)
    const db = new Database(out)
    db.run("INSERT INTO __vigil_migrations (tag, hash, applied_at) VALUES ('9999_from_the_future', 'x', 1)")
    db.run(`UPDATE ${BACKUP_TABLE} SET value = '9.0.0' WHERE name = 'vigil_version'`)
    db.close()
    expect(() => restoreCommand(testConfig({ dataDir: tempDir() }), out)).toThrow('was written by vigil 9.0.0, which is newer than this one')
  })

  test('refuses a secret name with a path in it', () => {
    const { config } = instance()
    const out = join(tempDir(), 'b.db')
    backupCommand(config, out)
    const db = new Database(out)
    db.run(`INSERT INTO ${BACKUP_TABLE} (kind, name, value) VALUES ('secret', '../escape', 'x')`)
    db.close()
    const target = testConfig({ dataDir: tempDir() })
    expect(() => restoreCommand(target, out)).toThrow(/not a plain file name/)
    expect(existsSync(join(target.dataDir, '..', 'escape'))).toBe(false)
  })
})

describe('command-line mistakes', () => {
  test('a mistyped option names the help that lists the right ones', async () => {
    const { main } = await import('../../src/main')
    expect(main(['backup', '--outt', 'x.db'])).rejects.toThrow('unknown option --outt; run "vigil backup --help" for its options')
    expect(main(['restore', 'a.db', 'b.db'])).rejects.toThrow('unexpected argument "b.db"; run "vigil restore --help" for its options')
  })
})
