/**
 * A hub on PostgreSQL without VIGIL_REDIS_URL keeps the rate limit's buckets in its database, so
 * hubs on one database count one budget: two apps in process on one fresh database, the second
 * asked after the first spent the budget.
 */
import { afterAll, expect, test } from 'bun:test'
import { openPostgres } from '../../src/db/pg/connection'
import { migratePostgres } from '../../src/db/pg/migrate'
import { manualClock } from '../../src/lib/clock'
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
    const a = testApp({ clock, pg: first, config })
    const b = testApp({ clock, pg: hub(), config })
    const statuses: number[] = []
    for (let i = 0; i < LIMIT + 3; i++) statuses.push((await (i % 2 ? b : a).request('GET', '/v1/auth/me', {})).status)
    expect(statuses.filter((s) => s === 429)).toHaveLength(3)
    expect(a.logs.some((l) => l.includes('rate limit shared across hubs') && l.includes('postgresql'))).toBe(true)
  },
  60_000,
)
