/**
 * /health on a hub whose database is PostgreSQL: the app in process on a fresh migrated database,
 * reached through a TCP proxy the test stops and starts again (the shared server is never touched).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { openPostgres } from '../../../src/db/pg/connection'
import { migratePostgres } from '../../../src/db/pg/migrate'
import { createHealthStorePg, PING_CACHE_MS, STATS_REFRESH_MS } from '../../../src/modules/health/health.store.pg'
import { manualClock } from '../../../src/lib/clock'
import { testApp } from '../../helpers/app'
import { postgresForTests, type FreshDatabase } from '../../helpers/postgres'
import { tcpProxy } from '../../helpers/tcp-proxy'

const pg = postgresForTests()
const cleanup: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
}, 60_000)

/** the app on a fresh database, connected through a proxy; the URL the hub is given carries a password */
async function hubBehindProxy() {
  const fresh: FreshDatabase = await pg.freshDatabase('vigil_health')
  cleanup.push(() => fresh.drop())
  const real = new URL(fresh.url)
  const proxy = await tcpProxy({ host: real.hostname, port: Number(real.port || 5432) })
  cleanup.push(async () => proxy.stop())
  const viaProxy = new URL(fresh.url)
  viaProxy.hostname = '127.0.0.1'
  viaProxy.port = String(proxy.port)
  const url = viaProxy.toString()
  const sql = openPostgres({ url, pool: 2 })
  cleanup.push(() => sql.close().catch(() => {}))
  await migratePostgres(sql, Date.now())
  const clock = manualClock()
  const t = testApp({ clock, pg: sql, config: { database: { url, pool: 2 } } })
  return { t, clock, proxy, password: decodeURIComponent(real.password) }
}

describe('GET /health on PostgreSQL', () => {
  test.skipIf(!pg.url)(
    `the database lost: 503 with the reason and no password; back: 200 again without a restart ${pg.skipReason}`,
    async () => {
      const { t, clock, proxy, password } = await hubBehindProxy()
      const up = await t.request('GET', '/health')
      expect(up.status).toBe(200)
      expect(up.body.database).toEqual({ ok: true })

      proxy.stop()
      clock.advance(PING_CACHE_MS)
      const lostAt = clock.now()
      const down = await t.request('GET', '/health')
      expect(down.status).toBe(503)
      expect(down.body.status).toBe('degraded')
      expect(down.body.database).toMatchObject({ ok: false, fault: 'unavailable', since: new Date(lostAt).toISOString() })
      expect(down.body.database.message).toContain('cannot connect to PostgreSQL')
      expect(down.text).not.toContain(password)

      // still down a while later: the spell is dated from its start
      clock.advance(PING_CACHE_MS * 5)
      const still = await t.request('GET', '/health')
      expect(still.status).toBe(503)
      expect(still.body.database.since).toBe(new Date(lostAt).toISOString())

      proxy.start()
      clock.advance(PING_CACHE_MS)
      const back = await t.request('GET', '/health')
      expect(back.status).toBe(200)
      expect(back.body.database).toEqual({ ok: true })
    },
    60_000,
  )

  test.skipIf(!pg.url)(
    `answers within a second are reused: the server is asked once per second whatever the callers ${pg.skipReason}`,
    async () => {
      const { t, clock, proxy } = await hubBehindProxy()
      expect((await t.request('GET', '/health')).status).toBe(200)
      proxy.stop()
      // within the cache: the answer of a moment ago
      clock.advance(PING_CACHE_MS - 1)
      expect((await t.request('GET', '/health')).status).toBe(200)
      clock.advance(1)
      expect((await t.request('GET', '/health')).status).toBe(503)
      proxy.start()
    },
    60_000,
  )

  test.skipIf(!pg.url)(
    `the stats give the database's size and connections, read again once they are old ${pg.skipReason}`,
    async () => {
      const fresh = await pg.freshDatabase('vigil_health')
      cleanup.push(() => fresh.drop())
      const sql = openPostgres({ url: fresh.url, pool: 2 })
      cleanup.push(() => sql.close().catch(() => {}))
      await migratePostgres(sql, Date.now())
      const clock = manualClock()
      const store = createHealthStorePg(sql, { now: () => clock.now(), url: fresh.url })
      await store.refresh()
      const first = store.stats()
      expect(first.database_bytes).toBeGreaterThan(1_000_000)
      expect(first.database_connections).toBeGreaterThanOrEqual(1)
      await sql`CREATE TABLE grow AS SELECT repeat('x', 1000) AS pad FROM generate_series(1, 2000)`
      // within STATS_REFRESH_MS: what was read
      expect(store.stats().database_bytes).toBe(first.database_bytes)
      clock.advance(STATS_REFRESH_MS)
      store.stats() // starts a read in the background
      await store.refresh() // the same read
      expect(store.stats().database_bytes).toBeGreaterThan(first.database_bytes)
    },
    60_000,
  )
})
