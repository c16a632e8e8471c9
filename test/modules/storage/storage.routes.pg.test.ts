import { describe, expect, test } from 'bun:test'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { createTenant } from '../../helpers/fixtures'

/** The operator's storage page and the /metrics scrape on a hub on PostgreSQL. */
const pgApp = pgTestAppLifecycle()
const TOKEN = 'metrics-token-for-the-storage-test-0123456789'

describe('storage on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(`the operator page and /metrics show PostgreSQL's own sizes, and no SQLite write-ahead log ${pgApp.skipReason}`, async () => {
    const t = await pgApp.make({ config: { metricsToken: TOKEN } })
    const operator = await createTenant(t, { role: 'admin' })
    await t.sql`INSERT INTO recommendations (id, client_id, recommendation, source, created_at)
      SELECT 'rec_' || g, ${operator.clientId}, repeat('x', 500), 'rules', g FROM generate_series(1, 2000) g`
    const measured = await t.request('POST', '/v1/admin/storage/enforce', { headers: operator.userHeaders })
    expect(measured.status).toBe(200)
    const [{ size, recs }] = await t.sql`SELECT pg_database_size(current_database())::float8 AS size, pg_total_relation_size('recommendations')::float8 AS recs`
    expect(measured.body.database_bytes).toBe(size)
    expect(measured.body.budget).toBeNull()
    // the rest is every table outside the metric tiers: the recommendations among them
    expect(measured.body.rest_bytes).toBeGreaterThanOrEqual(recs)
    expect(measured.body.rest_bytes).toBeLessThanOrEqual(size)
    expect(measured.body.tiers.map((x: { tier: string }) => x.tier)).toEqual(['raw', '1m', '10m', '1h', '1d'])
    const page = await t.request('GET', '/v1/admin/storage', { headers: operator.userHeaders })
    expect(page.body.rest_bytes).toBe(measured.body.rest_bytes)
    const scrape = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(scrape.status).toBe(200)
    const [{ now }] = await t.sql`SELECT pg_database_size(current_database())::float8 AS now`
    expect(scrape.text).toContain(`\nvigil_database_size_bytes ${now}\n`)
    expect(scrape.text).not.toContain('vigil_database_wal_size_bytes')
    expect(scrape.text).toContain(`vigil_storage_tier_bytes{tier="rest"} ${measured.body.rest_bytes}\n`)
  })

  test.skipIf(pgApp.skip)(`a hub on PostgreSQL refuses VIGIL_STORAGE_BUDGET at start, in one line that says why ${pgApp.skipReason}`, async () => {
    const budget = { budget: { kind: 'bytes' as const, bytes: 8e9, text: '8GB' }, diskWarnRatio: 0.9 }
    let error: Error | undefined
    try {
      await pgApp.make({ config: { storage: budget } })
    } catch (err) {
      error = err as Error
    }
    expect(error?.name).toBe('ConfigError')
    expect(error?.message).toStartWith('VIGIL_STORAGE_BUDGET (8GB) applies to the SQLite database only')
    expect(error?.message).not.toContain('\n')
  })
})
