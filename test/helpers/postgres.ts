/**
 * Real PostgreSQL and Redis for the tests that need them. `.ci/run` installs Debian's postgresql-15 and
 * redis-server, starts them and sets VIGIL_TEST_PG_URL (a superuser URL to the `postgres` database) and
 * VIGIL_TEST_REDIS_URL. Without them a test skips, and `skipReason` says why in its name.
 *
 *   const pg = postgresForTests()
 *   test.skipIf(!pg.url)(`… ${pg.skipReason}`, async () => { const db = await pg.freshDatabase(); … await db.drop() })
 */
import { SQL } from 'bun'

/** SQL written with SQLite's `?` placeholders, numbered for PostgreSQL (`$1, $2, …`) */
export const numbered = (text: string) => {
  let n = 0
  return text.replace(/\?/g, () => `$${++n}`)
}

export interface FreshDatabase {
  /** postgres:// URL of a database made for this test alone */
  url: string
  name: string
  /** drops the database, ending the connections still open to it */
  drop(): Promise<void>
}

export function postgresForTests() {
  const url = process.env.VIGIL_TEST_PG_URL
  return {
    url,
    skipReason: url ? '' : '(skipped: VIGIL_TEST_PG_URL is not set; .ci/run starts postgresql-15 and sets it)',
    /** a new, empty database on the test server */
    async freshDatabase(prefix = 'vigil_test'): Promise<FreshDatabase> {
      if (!url) throw new Error('VIGIL_TEST_PG_URL is not set')
      const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
      const admin = new SQL(url, { max: 1 })
      try {
        await admin.unsafe(`CREATE DATABASE "${name}"`)
      } finally {
        await admin.close()
      }
      const dbUrl = new URL(url)
      dbUrl.pathname = `/${name}`
      return {
        url: dbUrl.toString(),
        name,
        async drop() {
          const a = new SQL(url, { max: 1 })
          try {
            await a.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
          } finally {
            await a.close()
          }
        },
      }
    },
  }
}

export function redisForTests() {
  const url = process.env.VIGIL_TEST_REDIS_URL
  return {
    url,
    skipReason: url ? '' : '(skipped: VIGIL_TEST_REDIS_URL is not set; .ci/run starts redis-server and sets it)',
  }
}
