import { type TestApp, testApp } from '../../helpers/app'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { type insertDevice, insertDeviceOn } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'

type Overrides = Parameters<typeof testApp>[0]

/**
 * The in-process app on each engine for the alerts' HTTP tests: SQLite, and the app with its
 * PostgreSQL stores on a fresh migrated database (skipped, saying why, without
 * VIGIL_TEST_PG_URL). Call once per test file, at its top level.
 */
export function alertEngines() {
  const pgApp = pgTestAppLifecycle()
  return [
    { name: 'sqlite', skip: false, skipReason: '', make: async (o: Overrides = {}): Promise<TestApp> => testApp(o) },
    { name: 'postgres', skip: pgApp.skip, skipReason: pgApp.skipReason, make: (o: Overrides = {}): Promise<TestApp> => pgApp.make(o) },
  ]
}

/**
 * A tenant as the fixtures make it. On PostgreSQL the alerts tables name their client there:
 * the row the fixtures write to SQLite is written there too (kept if the clients store wrote it).
 */
export async function alertTenant(t: TestApp, opts: Parameters<typeof createTenant>[1] = {}) {
  const a = await createTenant(t, opts)
  const sql = t.ctx.pg
  if (sql) await sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${a.clientId}, ${a.clientId}, 1, 1) ON CONFLICT DO NOTHING`
  return a
}

/** A device as the fixtures make it, where the app keeps its devices. */
export async function alertDevice(t: TestApp, clientId: string, opts: Parameters<typeof insertDevice>[2] = {}) {
  return insertDeviceOn(t, clientId, opts)
}
