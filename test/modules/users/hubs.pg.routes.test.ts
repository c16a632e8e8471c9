import { afterAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { migratePostgres } from '../../../src/db/pg/migrate'
import { manualClock } from '../../../src/lib/clock'
import { setupTokenFor, setupTokenNotice } from '../../../src/modules/users/users.setup-token'
import { testApp, type TestApp } from '../../helpers/app'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'

/**
 * Two hubs (two apps in process) on one PostgreSQL database, as a proxy spreading requests over
 * them sees them: they agree on one setup token, and count failed sign-ins together.
 */
const pg = postgresForTests()
const PASSWORD = 'correct horse battery'
/** making and migrating a database takes seconds on a busy machine */
const SLOW = 60_000
const T0 = Date.parse('2026-03-01T00:00:00Z')
/** a request from another machine, through the proxy */
const proxied = { 'x-forwarded-for': '203.0.113.7' }

const made: { fresh: FreshDatabase; sql: SQL }[] = []
afterAll(async () => {
  for (const { fresh, sql } of made) {
    await sql.close()
    await fresh.drop()
  }
}, SLOW)

async function database(): Promise<SQL> {
  const fresh = await pg.freshDatabase('vigil_hubs')
  const sql = new SQL(fresh.url, { max: 4 })
  made.push({ fresh, sql })
  await migratePostgres(sql, Date.now())
  return sql
}

const register = (t: TestApp, email: string, headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
  t.request('POST', '/v1/auth/register', { body: { email, password: PASSWORD, ...extra }, headers })
const login = (t: TestApp, email: string, password: string) => t.request('POST', '/v1/auth/login', { body: { email, password } })

describe('two hubs on one PostgreSQL', () => {
  test.skipIf(!pg.url)(
    `agree on one setup token: the token the first hub logged registers the operator on the second; a wrong one is refused on both ${pg.skipReason}`,
    async () => {
      const sql = await database()
      const first = await setupTokenFor({ pg: sql }, T0, 'hub-a:1')
      const second = await setupTokenFor({ pg: sql }, T0 + 5_000, 'hub-b:2')
      expect(first.token).toMatch(/^vst_/)
      expect(second).toEqual({ token: null, hash: first.hash, madeAt: T0, hub: 'hub-a:1', shared: true })
      // the second hub's console says where the token is, and never prints one
      const notice = setupTokenNotice(second, '')
      expect(notice).toContain('the setup token was logged by the hub that started first (hub-a:1) at 2026-03-01T00:00:00.000Z')
      expect(notice).toContain('across restarts')
      expect(notice).not.toContain('vst_')
      expect(setupTokenNotice(first, '')).toContain(first.token!)
      // only the hash is stored
      expect(JSON.stringify(await sql`SELECT * FROM setup_tokens`)).not.toContain(first.token!)

      const clock = manualClock(T0)
      const a = testApp({ pg: sql, clock, setupToken: first })
      const b = testApp({ pg: sql, clock, setupToken: second })
      for (const hub of [a, b]) {
        expect((await hub.request('GET', '/health', { headers: proxied })).body.setup_token_required).toBe(true)
        const wrong = await register(hub, 'ops@example.test', { ...proxied, 'x-setup-token': 'vst_guess' })
        expect(wrong.status).toBe(403)
        expect(wrong.body.error.code).toBe('setup_token_required')
        expect((await register(hub, 'ops@example.test', proxied)).body.error.code).toBe('setup_token_required')
      }
      const ok = await register(b, 'ops@example.test', { ...proxied, 'x-setup-token': first.token! })
      expect(ok.status).toBe(201)
      expect(ok.body.role).toBe('admin')
      // a third hub starting later finds the same token, no longer needed
      expect((await setupTokenFor({ pg: sql }, T0 + 60_000, 'hub-c:3')).hash).toBe(first.hash)
    },
    SLOW,
  )

  test.skipIf(!pg.url)(
    `count failed sign-ins together: failures alternating between the hubs lock the account after as many as on one hub ${pg.skipReason}`,
    async () => {
      const sql = await database()
      const clock = manualClock(T0)
      const a = testApp({ pg: sql, clock })
      const b = testApp({ pg: sql, clock })
      expect((await register(a, 'u@example.test', {})).status).toBe(201)
      const hubs = [a, b]
      for (let i = 0; i < 5; i++) expect((await login(hubs[i % 2]!, 'u@example.test', 'wrong password')).status).toBe(401)
      for (const hub of hubs) {
        const refused = await login(hub, 'u@example.test', PASSWORD)
        expect(refused.status).toBe(429)
        expect(refused.headers.get('retry-after')).toBe('30')
      }
      expect(Number((await sql`SELECT failures FROM login_throttle WHERE key = 'account:email:u@example.test'`)[0].failures)).toBe(5)
      // the lockout over, a success on one hub forgets the failures on both
      clock.advance(30_000)
      expect((await login(b, 'u@example.test', PASSWORD)).status).toBe(200)
      expect((await login(a, 'u@example.test', 'wrong password')).status).toBe(401)
      expect((await login(a, 'u@example.test', PASSWORD)).status).toBe(200)
    },
    SLOW,
  )
})
