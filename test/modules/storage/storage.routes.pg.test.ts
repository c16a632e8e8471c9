import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { insertDeviceOn } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'
import { hardwareSample } from '../../helpers/samples'

/** The operator's storage page and the /metrics scrape on a hub on PostgreSQL. */
const pgApp = pgTestAppLifecycle()
const TOKEN = 'metrics-token-for-the-storage-test-0123456789'

describe('storage on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(`the operator page and /metrics show PostgreSQL's own sizes, and no SQLite write-ahead log ${pgApp.skipReason}`, async () => {
    const t = await pgApp.make({ config: { metricsToken: TOKEN } })
    const operator = await createTenant(t, { role: 'admin' })
    await t.sql`INSERT INTO recommendations (id, client_id, recommendation, source, created_at)
      SELECT 'rec_' || g, ${operator.clientId}, repeat('x', 500), 'rules', g FROM generate_series(1, 2000) g`
    // the hub's own writes may grow the database while it is measured: its figure lies between
    // the server's read just before and just after
    const [{ first }] = await t.sql`SELECT pg_database_size(current_database())::float8 AS first`
    const measured = await t.request('POST', '/v1/admin/storage/enforce', { headers: operator.userHeaders })
    expect(measured.status).toBe(200)
    const [{ size, recs }] = await t.sql`SELECT pg_database_size(current_database())::float8 AS size, pg_total_relation_size('recommendations')::float8 AS recs`
    expect(measured.body.database_bytes).toBeGreaterThanOrEqual(first)
    expect(measured.body.database_bytes).toBeLessThanOrEqual(size)
    expect(measured.body.budget).toBeNull()
    // the rest is every table outside the metric tiers: the recommendations among them
    expect(measured.body.rest_bytes).toBeGreaterThanOrEqual(recs)
    expect(measured.body.rest_bytes).toBeLessThanOrEqual(size)
    expect(measured.body.tiers.map((x: { tier: string }) => x.tier)).toEqual(['raw', '1m', '10m', '1h', '1d'])
    const page = await t.request('GET', '/v1/admin/storage', { headers: operator.userHeaders })
    expect(page.body.rest_bytes).toBe(measured.body.rest_bytes)
    // the hub's own writes (the scrape's among them) may grow the database while it is read: the
    // scraped size lies between the server's figures read just before and just after
    const [{ before }] = await t.sql`SELECT pg_database_size(current_database())::float8 AS before`
    const scrape = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(scrape.status).toBe(200)
    const [{ after }] = await t.sql`SELECT pg_database_size(current_database())::float8 AS after`
    const scraped = Number(/\nvigil_database_size_bytes (\d+)\n/.exec(scrape.text)?.[1])
    expect(scraped).toBeGreaterThanOrEqual(before)
    expect(scraped).toBeLessThanOrEqual(after)
    expect(scrape.text).not.toContain('vigil_database_wal_size_bytes')
    expect(scrape.text).toContain(`vigil_storage_tier_bytes{tier="rest"} ${measured.body.rest_bytes}\n`)
  })

  test.skipIf(pgApp.skip)(
    `the enforce route measures on PostgreSQL: the raw tier's oldest sample read from metric_records' partitions, nothing pruned ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make()
      const operator = await createTenant(t, { role: 'admin' })
      const tenant = await createTenant(t)
      const deviceId = await insertDeviceOn(t, tenant.clientId, { hostname: 'db-1' })
      const first = t.clock.now()
      for (let i = 0; i < 3; i++) {
        const posted = await t.request('POST', '/v1/metrics/hardware', {
          headers: { ...tenant.keyHeaders, 'x-device-id': deviceId },
          body: hardwareSample(i),
        })
        expect(posted.status).toBe(201)
        t.clock.advance(60_000)
      }
      const [{ rows }] = await t.sql`SELECT count(*)::int AS rows FROM metric_records`
      expect(rows).toBeGreaterThan(0)
      // a tenant's user is not the operator
      expect((await t.request('POST', '/v1/admin/storage/enforce', { headers: tenant.userHeaders })).status).toBe(403)
      const measured = await t.request('POST', '/v1/admin/storage/enforce', { headers: operator.userHeaders })
      expect(measured.status).toBe(200)
      expect(measured.body.budget).toBeNull()
      expect(measured.body.last_prune).toBeNull()
      const raw = measured.body.tiers.find((x: { tier: string }) => x.tier === 'raw')
      expect(raw.oldest_at).toBe(new Date(first).toISOString())
      // the raw samples' partitions count in the raw tier, not in the rest
      const [{ records }] = await t.sql`SELECT sum(pg_total_relation_size(relid))::float8 AS records FROM pg_partition_tree('metric_records')`
      expect(records).toBeGreaterThan(0)
      expect(raw.bytes).toBeGreaterThanOrEqual(records)
      // the tiers not rolled up yet are empty
      expect(measured.body.tiers.find((x: { tier: string }) => x.tier === '1d').oldest_at).toBeNull()
      const [{ after }] = await t.sql`SELECT count(*)::int AS after FROM metric_records`
      expect(after).toBe(rows)
      const page = await t.request('GET', '/v1/admin/storage', { headers: operator.userHeaders })
      expect(page.body.tiers).toEqual(measured.body.tiers)
    },
  )

  test.skipIf(pgApp.skip)(`each hub on PostgreSQL measures for its own page: the storage jobs run on every hub ${pgApp.skipReason}`, async () => {
    const t = await pgApp.make()
    const operator = await createTenant(t, { role: 'admin' })
    const other = testApp({ pg: t.sql })
    const jobs = other.jobs.filter((j) => j.name.startsWith('storage.'))
    expect(jobs.map((j) => [j.name, j.everyHub])).toEqual([
      ['storage.budget', true],
      ['storage.measure', true],
    ])
    // a measure on the first hub is the first hub's
    expect((await t.request('POST', '/v1/admin/storage/enforce', { headers: operator.userHeaders })).status).toBe(200)
    const before = await other.request('GET', '/v1/admin/storage', { headers: operator.userHeaders })
    expect(before.status).toBe(200)
    expect(before.body.measured_at).toBeNull()
    await jobs.find((j) => j.name === 'storage.measure')!.run()
    const after = await other.request('GET', '/v1/admin/storage', { headers: operator.userHeaders })
    expect(after.body.measured_at).toBe(new Date(other.clock.now()).toISOString())
    expect(after.body.rest_bytes).toBeGreaterThan(0)
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

describe('storage on SQLite', () => {
  test('a hub on SQLite claims its storage jobs as before', () => {
    const t = testApp()
    expect(t.jobs.filter((j) => j.name.startsWith('storage.')).map((j) => j.everyHub)).toEqual([false, false])
  })
})
