import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { SQL } from 'bun'
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/db/migrations.gen'
import { MIGRATIONS as PG_MIGRATIONS } from '../../src/db/pg/migrations.gen'
import { ensureBinary, freePort, tempDir } from '../helpers/binary'
import { type FreshDatabase, postgresForTests } from '../helpers/postgres'

/** `vigil migrate` on both engines and `vigil serve`'s refusal of PostgreSQL, through the executable. */
const pg = postgresForTests()
const made: FreshDatabase[] = []
beforeAll(() => void ensureBinary(), 60_000)
afterAll(async () => {
  for (const db of made) await db.drop()
})

function run(args: string[], env: Record<string, string>) {
  const cwd = tempDir()
  const r = Bun.spawnSync([ensureBinary(), ...args], { cwd, env: { PATH: process.env.PATH ?? '', VIGIL_LOG_FORMAT: 'json', ...env } })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString(), cwd }
}

const withPassword = (url: string) => {
  const u = new URL(url)
  return { password: decodeURIComponent(u.password), redacted: u.password ? url.replace(`:${u.password}@`, ':***@') : url }
}

describe('vigil migrate on PostgreSQL', () => {
  test.skipIf(!pg.url)(`applies each migration once, names them, then says up to date; --status lists them ${pg.skipReason}`, async () => {
    const db = await pg.freshDatabase()
    made.push(db)
    const env = { VIGIL_DATABASE_URL: db.url }
    const { password, redacted } = withPassword(db.url)

    const before = run(['migrate', '--status'], env)
    expect(before.code).toBe(0)
    expect(before.out).toContain(`${redacted}: 0 applied, ${PG_MIGRATIONS.length} pending`)
    for (const m of PG_MIGRATIONS) expect(before.out).toContain(`pending   ${m.tag}`)

    const first = run(['migrate'], env)
    expect(first.code).toBe(0)
    for (const m of PG_MIGRATIONS) expect(first.out).toContain(`applied   ${m.tag}`)
    expect(first.out).toContain('the database is up to date')
    const again = run(['migrate'], env)
    expect(again.code).toBe(0)
    expect(again.out).not.toContain('applied   ')
    expect(again.out).toContain(`${redacted}: the database is up to date`)

    const after = run(['migrate', 'status'], env)
    expect(after.out).toContain(`${PG_MIGRATIONS.length} applied, 0 pending`)
    expect(after.out).toMatch(/^applied {3}0000_init {2}\d{4}-/m)
    for (const r of [before, first, again, after]) expect(r.out + r.err).not.toContain(password)
    // the data dir is SQLite's: none is made for a PostgreSQL migration
    expect(existsSync(join(first.cwd, 'data'))).toBe(false)

    const sql = new SQL(db.url, { max: 1 })
    try {
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM __vigil_migrations`
      expect(n).toBe(PG_MIGRATIONS.length)
      await sql`INSERT INTO __vigil_migrations (tag, hash, applied_at) VALUES ('9999_future', 'h', 1)`
    } finally {
      await sql.close()
    }
    const newer = run(['migrate'], env)
    expect(newer.code).toBe(2)
    expect(newer.err.trim().split('\n')).toHaveLength(1)
    expect(newer.err).toContain('used by a newer Vigil')
    expect(run(['migrate', '--status'], env).out).toContain('unknown   9999_future')
  })

  test('an unreachable server: exit 2, one line naming it, no password, no stack', () => {
    const url = `postgres://vigil:hunter22@127.0.0.1:${freePort()}/vigil`
    for (const args of [['migrate'], ['migrate', '--status']]) {
      const r = run(args, { VIGIL_DATABASE_URL: url })
      expect(r.code).toBe(2)
      expect(r.err.trim()).toBe(
        `vigil: cannot connect to PostgreSQL at ${url.replace('hunter22', '***')}: connection refused (is the server running and listening there?)`,
      )
      expect(r.out).toBe('')
    }
  })

  test.skipIf(!pg.url)(`a wrong password: the server's reason, without the password ${pg.skipReason}`, () => {
    const u = new URL(pg.url!)
    u.password = 'not-the-password-42'
    const r = run(['migrate'], { VIGIL_DATABASE_URL: u.toString() })
    expect(r.code).toBe(2)
    expect(r.err).toContain('password authentication failed')
    expect(r.err).not.toContain('not-the-password-42')
    expect(r.err).not.toContain('    at ')
  })

  test('a URL that is not PostgreSQL is refused before anything runs, without its password', () => {
    const r = run(['migrate'], { VIGIL_DATABASE_URL: 'mysql://root:hunter22@db/vigil' })
    expect(r.code).toBe(2)
    expect(r.err).toContain('VIGIL_DATABASE_URL must start with postgres:// or postgresql://')
    expect(r.err).not.toContain('hunter22')
  })
})

describe('vigil migrate on SQLite', () => {
  test('a fresh data dir: each migration named once, then up to date; --status lists them applied', () => {
    const dir = join(tempDir(), 'data')
    const env = { VIGIL_DATA_DIR: dir }
    const first = run(['migrate'], env)
    expect(first.code).toBe(0)
    for (const m of SQLITE_MIGRATIONS) expect(first.out).toContain(`applied   ${m.tag}`)
    expect(first.out).toContain(`${SQLITE_MIGRATIONS.length} migrations applied, the database is up to date`)
    const again = run(['migrate'], env)
    expect(again.out).not.toContain('applied   ')
    expect(again.out).toContain('the database is up to date')
    const status = run(['migrate', '--status'], env)
    expect(status.code).toBe(0)
    expect(status.out).toContain(`${SQLITE_MIGRATIONS.length} applied, 0 pending`)
  })
})

describe('vigil serve with VIGIL_DATABASE_URL', () => {
  test('a server that does not answer stops it in one line naming the server without its password, and makes no data dir', () => {
    const url = `postgres://vigil:hunter22@127.0.0.1:${freePort()}/vigil`
    const r = run(['serve'], { VIGIL_DATABASE_URL: url, VIGIL_PORT: String(freePort()), VIGIL_HOST: '127.0.0.1' })
    expect(r.code).toBe(2)
    const lines = r.err.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toStartWith('vigil: cannot connect to PostgreSQL at postgres://vigil:***@127.0.0.1:')
    expect(r.err).not.toContain('hunter22')
    expect(existsSync(join(r.cwd, 'data'))).toBe(false)
  })
})
