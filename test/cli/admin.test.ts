import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { adminCommand, type AdminOptions } from '../../src/cli/admin'
import { StartupError } from '../../src/cli/errors'
import { testConfig } from '../../src/config'
import { manualClock } from '../../src/lib/clock'
import { TEST_PASSWORD_COST } from '../helpers/app'
import { tempDirs } from '../helpers/temp-dirs'
import { postgresForTests } from '../helpers/postgres'
import { SQL } from 'bun'

const tempDir = tempDirs('vigil-admin-')

function setup() {
  const dir = tempDir()
  const config = testConfig({ dataDir: dir })
  const printed: string[] = []
  const run = (sub: string, opts: Partial<AdminOptions>, stdin = '') =>
    adminCommand(
      config,
      sub,
      { passwordStdin: false, ...opts },
      { readStdin: async () => stdin, print: (l) => printed.push(l), clock: manualClock(), passwordCost: TEST_PASSWORD_COST },
    )
  const user = (email: string) => {
    const db = new Database(join(dir, 'vigil.db'))
    const row = db
      .query<{ id: string; role: string; password_hash: string; client_id: string }, [string]>(
        'SELECT id, role, password_hash, client_id FROM users WHERE email = ?',
      )
      .get(email)
    db.close()
    return row
  }
  return { run, printed, user, dir }
}

describe('vigil admin', () => {
  test('create makes an operator with its own client; the password comes from stdin without its newline', async () => {
    const s = setup()
    expect(await s.run('create', { email: 'Ops@Example.test', passwordStdin: true }, 'a long password\n')).toBe(0)
    const row = s.user('ops@example.test')!
    expect(row.role).toBe('admin')
    expect(row.client_id).toBeTruthy()
    expect(await Bun.password.verify('a long password', row.password_hash)).toBe(true)
    expect(s.printed.join('\n')).not.toContain('a long password')
    await expect(s.run('create', { email: 'ops@example.test', passwordStdin: true }, 'a long password')).rejects.toThrow(/already has an account/)
  })

  test('set-role promotes and demotes; unknown email is an error', async () => {
    const s = setup()
    await s.run('create', { email: 'a@example.test', passwordStdin: true }, 'a long password')
    expect(await s.run('set-role', { email: 'a@example.test', role: 'user' })).toBe(0)
    expect(s.user('a@example.test')!.role).toBe('user')
    expect(await s.run('set-role', { email: 'a@example.test', role: 'admin' })).toBe(0)
    expect(s.user('a@example.test')!.role).toBe('admin')
    await expect(s.run('set-role', { email: 'a@example.test', role: 'root' })).rejects.toThrow(/--role admin or --role user/)
    await expect(s.run('set-role', { email: 'nobody@example.test', role: 'admin' })).rejects.toThrow(/No user/)
  })

  test('reset-password replaces the hash and revokes every session', async () => {
    const s = setup()
    await s.run('create', { email: 'a@example.test', passwordStdin: true }, 'old password!')
    const db = new Database(join(s.dir, 'vigil.db'))
    const id = s.user('a@example.test')!.id
    db.run("INSERT INTO refresh_tokens (id, user_id, family_id, token_hash, expires_at, created_at) VALUES ('rt1', ?, 'f1', 'h1', 9999999999999, 0)", [id])
    db.close()
    expect(await s.run('reset-password', { email: 'a@example.test', passwordStdin: true }, 'new password!')).toBe(0)
    expect(await Bun.password.verify('new password!', s.user('a@example.test')!.password_hash)).toBe(true)
    const check = new Database(join(s.dir, 'vigil.db'))
    expect(check.query<{ revoked_at: number | null }, []>("SELECT revoked_at FROM refresh_tokens WHERE id = 'rt1'").get()!.revoked_at).not.toBeNull()
    check.close()
  })

  test('refuses missing flags, short passwords and passwords not on stdin', async () => {
    const s = setup()
    await expect(s.run('create', { email: 'a@example.test' })).rejects.toThrow(StartupError)
    await expect(s.run('create', { passwordStdin: true }, 'a long password')).rejects.toThrow(/--email/)
    await expect(s.run('create', { email: 'a@example.test', passwordStdin: true }, 'short\n')).rejects.toThrow(/8 to 128/)
    await expect(s.run('frobnicate', {})).rejects.toThrow(/subcommand/)
  })

  test('list prints the operators', async () => {
    const s = setup()
    expect(s.run('list', {})).rejects.toThrow(/^no database at /) // a wrong data dir is not an empty instance
    await s.run('create', { email: 'a@example.test', passwordStdin: true }, 'a long password')
    await s.run('list', {})
    expect(s.printed.at(-1)).toContain('a@example.test')
  })
})

describe('vigil admin on PostgreSQL (VIGIL_DATABASE_URL)', () => {
  const pg = postgresForTests()
  test.skipIf(!pg.url)(
    `create, set-role, list and reset-password work on a fresh database, which is migrated first ${pg.skipReason}`,
    async () => {
      const fresh = await pg.freshDatabase('vigil_admin')
      try {
        const dir = tempDir()
        const base = testConfig({ dataDir: dir })
        const config = { ...base, database: { ...base.database, url: fresh.url } }
        const printed: string[] = []
        const run = (sub: string, opts: Partial<AdminOptions>, stdin = '') =>
          adminCommand(
            config,
            sub,
            { passwordStdin: false, ...opts },
            { readStdin: async () => stdin, print: (l) => printed.push(l), clock: manualClock(), passwordCost: TEST_PASSWORD_COST },
          )
        expect(await run('create', { email: 'ops@example.test', passwordStdin: true }, 'a long password\n')).toBe(0)
        expect(printed.at(-1)).toContain('postgres://')
        expect(printed.at(-1)).not.toContain('vigil-test') // the URL's password
        expect(await run('set-role', { email: 'ops@example.test', role: 'user' })).toBe(0)
        expect(await run('list', {})).toBe(0)
        expect(printed.at(-1)).toContain('no operators yet')
        expect(await run('set-role', { email: 'ops@example.test', role: 'admin' })).toBe(0)
        expect(await run('reset-password', { email: 'ops@example.test', passwordStdin: true }, 'another long password')).toBe(0)
        const sql = new SQL(fresh.url)
        const [row] =
          await sql`SELECT u.role, u.password_hash, m.role AS member_role FROM users u JOIN members m ON m.user_id = u.id AND m.client_id = u.client_id`
        await sql.close()
        expect(row.role).toBe('admin')
        expect(row.member_role).toBe('owner')
        expect(await Bun.password.verify('another long password', row.password_hash)).toBe(true)
        // nothing was written beside the service's data dir
        expect(await Bun.file(join(dir, 'vigil.db')).exists()).toBe(false)
      } finally {
        await fresh.drop()
      }
    },
    60_000,
  ) // making and migrating a database takes seconds on a busy machine
})
