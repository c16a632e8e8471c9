/**
 * A hub on PostgreSQL without VIGIL_REDIS_URL keeps the rate limit's buckets in its database, so
 * hubs on one database count one budget: two apps in process on one fresh database, the second
 * asked after the first spent the budget.
 */
import { afterAll, expect, test } from 'bun:test'
import { openPostgres } from '../../src/db/pg/connection'
import { migratePostgres } from '../../src/db/pg/migrate'
import { SHARED_BOUND_MS } from '../../src/http/rate-limiter.fallback'
import { manualClock } from '../../src/lib/clock'
import { systemTimers, type Timers } from '../../src/lib/timers'
import { testApp } from '../helpers/app'
import { postgresForTests } from '../helpers/postgres'

const pg = postgresForTests()
const cleanup: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
}, 60_000)

const LIMIT = 5

test.skipIf(!pg.url)(
  `two hubs on one PostgreSQL database share an anonymous budget; Redis unset ${pg.skipReason}`,
  async () => {
    const fresh = await pg.freshDatabase('vigil_limit')
    cleanup.push(() => fresh.drop())
    const clock = manualClock()
    const hub = () => {
      const sql = openPostgres({ url: fresh.url, pool: 2 })
      cleanup.push(() => sql.close())
      return sql
    }
    const first = hub()
    await migratePostgres(first, Date.now())
    const config = { database: { url: fresh.url, pool: 2 }, redisUrl: null, rateLimits: { free: 100, pro: 100, enterprise: 100, anonymous: LIMIT } }
    // the bound on a take never trips here: on a busy machine a hub's first take, which opens the
    // limiter's connections, can pass 50 ms, and with the clock standing still the hub would count
    // locally from then on (the fallback has tests of its own)
    const timers: Timers = { after: (ms, fn) => (ms === SHARED_BOUND_MS ? () => {} : systemTimers.after(ms, fn)) }
    const a = testApp({ clock, pg: first, config, timers })
    const b = testApp({ clock, pg: hub(), config, timers })
    const statuses: number[] = []
    for (let i = 0; i < LIMIT + 3; i++) statuses.push((await (i % 2 ? b : a).request('GET', '/v1/auth/me', {})).status)
    expect(statuses.filter((s) => s === 429)).toHaveLength(3)
    expect(a.logs.some((l) => l.includes('rate limit shared across hubs') && l.includes('postgresql'))).toBe(true)
  },
  60_000,
)
