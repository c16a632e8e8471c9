/**
 * The app on PostgreSQL, in process: `testApp` with its `pg` set to a fresh migrated database of
 * its own, so the stores that run on both engines are built on PostgreSQL (src/composition/engine.ts).
 * Skips, saying why, without VIGIL_TEST_PG_URL:
 *
 *   const pgApp = pgTestAppLifecycle()
 *   test.skipIf(pgApp.skip)(`… ${pgApp.skipReason}`, async () => { const t = await pgApp.make(); … })
 */
import { afterAll } from 'bun:test'
import type { SQL } from 'bun'
import { openPostgres } from '../../src/db/pg/connection'
import { migratePostgres } from '../../src/db/pg/migrate'
import { testApp } from './app'
import { type FreshDatabase, postgresForTests } from './postgres'

const pg = postgresForTests()

export function pgTestAppLifecycle() {
  const made: { fresh: FreshDatabase; sql: SQL }[] = []
  afterAll(async () => {
    for (const { fresh, sql } of made) {
      await sql.close()
      await fresh.drop()
    }
  }, 60_000)
  return {
    skip: !pg.url,
    skipReason: pg.skipReason,
    /** a fresh app whose stores are on a fresh migrated PostgreSQL database */
    async make(overrides: Parameters<typeof testApp>[0] = {}) {
      const fresh = await pg.freshDatabase('vigil_app')
      const sql = openPostgres({ url: fresh.url, pool: 4 })
      made.push({ fresh, sql })
      await migratePostgres(sql, Date.now())
      return { ...testApp({ ...overrides, pg: sql }), sql }
    },
  }
}
