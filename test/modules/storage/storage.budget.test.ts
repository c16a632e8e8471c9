import { describe, expect, test } from 'bun:test'
import type { StorageSettings } from '../../../src/modules/storage/storage.config'
import type { DiskFigures } from '../../../src/modules/storage/storage.disk'
import {
  budgetBytes,
  enforceBudget,
  measure,
  newStorageState,
  storageGauges,
  storageReport,
  type StorageDeps,
} from '../../../src/modules/storage/storage.service'
import { testApp, type TestApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { minuteRows } from '../metrics/minute-rows'

const START = Date.parse('2026-03-01T00:00:00Z')
const STEP = 10_000
const MB = 1_000_000
const HOUR = 3_600_000

const settings = (budget: number | null, diskWarnRatio = 0.9): StorageSettings => ({
  budget: budget === null ? null : { kind: 'bytes', bytes: budget, text: `${budget / MB}MB` },
  diskWarnRatio,
})

/**
 * Samples from two devices in turn, one every STEP, each with its collector's full body, then
 * sealed into their long-lived form (docs/storage.md) as the hub's job does within minutes: the
 * budget prunes that form.
 */
async function fill(t: TestApp, headers: Record<string, string>[], n: number, from = 0, rollUp = true) {
  for (let i = from; i < from + n; i++) {
    t.clock.set(START + i * STEP)
    const r = await t.request('POST', '/v1/metrics/batch', {
      body: { hardware: hardwareSample(i), network: networkSample(i) },
      headers: headers[i % headers.length]!,
    })
    if (r.status !== 201) throw new Error(r.text)
  }
  if (rollUp) await t.jobs.find((j) => j.name === 'metrics.rollup')!.run()
  while (n > 0 && (await t.modules.sealer.run()).blocks > 0) {}
}

async function filledApp(n: number) {
  const t = testApp()
  const tenant = await tenantWithDevices(t, 2)
  // one key for both devices: each request names its device
  await fill(
    t,
    tenant.deviceIds.map((id) => ({ ...tenant.keyHeaders, 'x-device-id': id })),
    n,
  )
  return { t, tenant }
}

/** The app's own storage deps with another budget, disk and (optionally) state. */
function deps(t: TestApp, over: Partial<StorageDeps> = {}): StorageDeps {
  return { ...t.modules.storage, settings: settings(null), state: newStorageState(), pause: async () => {}, ...over }
}

const oldestPerDevice = (t: TestApp) =>
  t.db.sqlite
    .query<{ seq: number; oldest: number; newest: number; n: number }, []>(
      'SELECT device_seq AS seq, min(ts) AS oldest, max(ts) AS newest, count(*) AS n FROM metric_samples GROUP BY device_seq',
    )
    .all()
const rows = (t: TestApp, table: string) => t.db.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n

describe('the disk budget', () => {
  test('the data passes it: the whole fleet’s oldest raw samples go first, the newest stay, the rollups are untouched and the file shrinks', async () => {
    const { t } = await filledApp(3000)
    const d = deps(t, { settings: settings(1.5 * MB) })
    await measure(d)
    const usedBefore = await t.modules.storage.store.usedBytes()
    expect(usedBefore).toBeGreaterThan(1.5 * MB)
    const before = oldestPerDevice(t)
    const minutes = minuteRows(t.db.sqlite).length
    await enforceBudget(d)
    const after = oldestPerDevice(t)
    expect(await t.modules.storage.store.usedBytes()).toBeLessThanOrEqual(1.5 * MB)
    expect(after.map((r) => r.newest)).toEqual(before.map((r) => r.newest))
    for (const [i, r] of after.entries()) expect(r.oldest).toBeGreaterThan(before[i]!.oldest)
    // fair: one cut-off for the fleet, so neither device keeps a sample older than the other lost
    const cut = Math.max(...after.map((r) => r.oldest))
    expect(Math.min(...after.map((r) => r.oldest))).toBeGreaterThan(cut - 2 * STEP)
    expect(minuteRows(t.db.sqlite).length).toBe(minutes)
    expect(t.db.sqlite.query<{ freelist_count: number }, []>('PRAGMA freelist_count').get()!.freelist_count).toBe(0)
    expect(d.state.lastPrune).toMatchObject({ tiers: ['raw'] })
    expect(d.state.warnings.budget).toBeNull()
    expect(d.state.lastPrune!.deletedRows).toBe(before.reduce((a, r) => a + r.n, 0) - after.reduce((a, r) => a + r.n, 0))
    expect(t.logs.some((l) => l.includes('storage budget: oldest data removed'))).toBe(true)
  }, 60_000)

  test('figures measured before the data grew are measured again before a pruning is planned from them', async () => {
    const { t, tenant } = await filledApp(0)
    const d = deps(t, { settings: settings(1.5 * MB) })
    // measured while the fleet had sent nothing yet (the first run after a start)
    await measure(d)
    await fill(
      t,
      tenant.deviceIds.map((id) => ({ ...tenant.keyHeaders, 'x-device-id': id })),
      3000,
    )
    // as if those figures were a minute old: young, but from before the growth
    d.state.usage!.at = t.clock.now() - 60_000
    await enforceBudget(d)
    expect(await t.modules.storage.store.usedBytes()).toBeLessThanOrEqual(1.5 * MB)
    // the oldest went, not everything older than the newest hour (what stale, small figures would plan)
    const left = oldestPerDevice(t)
    for (const r of left) expect(r.oldest).toBeGreaterThan(START)
    for (const r of left) expect(r.oldest).toBeLessThan(t.clock.now() - HOUR - 10 * 60_000)
    expect(d.state.warnings.budget).toBeNull()
  }, 60_000)

  test('raw samples the rollup has not folded yet (a replay just in) are rolled up before they are pruned', async () => {
    const { t, tenant } = await filledApp(0)
    const headers = tenant.deviceIds.map((id) => ({ ...tenant.keyHeaders, 'x-device-id': id }))
    await fill(t, headers, 3000, 0, false)
    expect(minuteRows(t.db.sqlite)).toEqual([])
    // a budget the data passes before its rollups are even written
    await enforceBudget(deps(t, { settings: settings(1.2 * MB) }))
    expect(minuteRows(t.db.sqlite)[0]!.bucket).toBe(START)
    expect(oldestPerDevice(t)[0]!.oldest).toBeGreaterThan(START + HOUR)
  }, 60_000)

  test('under the budget, or without one, nothing is removed', async () => {
    const { t } = await filledApp(600)
    const n = rows(t, 'metric_samples')
    await enforceBudget(deps(t, { settings: settings(50 * MB) }))
    await enforceBudget(deps(t))
    expect(rows(t, 'metric_samples')).toBe(n)
  }, 60_000)

  test('a budget smaller than what is never pruned keeps the newest hour, and says so once, on /health too', async () => {
    const { t } = await filledApp(1500)
    const d = deps(t, { settings: settings(0.5 * MB), state: t.modules.storage.state })
    await enforceBudget(d)
    const left = oldestPerDevice(t)
    for (const r of left) expect(r.oldest).toBeGreaterThanOrEqual(t.clock.now() - HOUR)
    expect(d.state.warnings.budget).toContain('VIGIL_STORAGE_BUDGET=0.5MB')
    expect((await storageReport(d)).budget!.short_bytes).toBe((await t.modules.storage.store.usedBytes()) - 0.5 * MB)
    await enforceBudget(d)
    expect(t.logs.filter((l) => l.includes('is smaller than what Vigil never prunes')).length).toBe(1)
    const health = await t.request('GET', '/health')
    expect(health.body.storage.warning).toContain('smaller than what Vigil never prunes')
  }, 60_000)
})

describe('the disk warning', () => {
  test('logged once per crossing with what to do, on /health while it lasts, cleared when the disk has room again', async () => {
    const t = testApp()
    let used = 0.95
    const disk = (): DiskFigures => ({ totalBytes: 100 * MB, availableBytes: (1 - used) * 100 * MB, usedRatio: used })
    const d = deps(t, { readDisk: disk, state: t.modules.storage.state, settings: settings(null, 0.9) })
    await enforceBudget(d)
    used = 0.97
    await enforceBudget(d)
    const warned = t.logs.filter((l) => l.includes('the disk holding the data dir is'))
    expect(warned).toHaveLength(1)
    expect(warned[0]).toContain('95% full (VIGIL_STORAGE_DISK_WARN is 90%)')
    expect(warned[0]).toContain('VIGIL_STORAGE_BUDGET')
    expect((await t.request('GET', '/health')).body.storage.warning).toContain('97% full')
    used = 0.5
    await enforceBudget(d)
    expect((await t.request('GET', '/health')).body.storage).toMatchObject({ warning: null })
    expect(t.logs.some((l) => l.includes('below its warning level again'))).toBe(true)
  })
})

describe('GET /v1/admin/storage', () => {
  test('the operator sees the space per tier and the rest, as last measured; others are refused', async () => {
    const { t } = await filledApp(300)
    const operator = await createTenant(t, { role: 'admin' })
    const someone = await createTenant(t)
    expect((await t.request('GET', '/v1/admin/storage')).status).toBe(401)
    expect((await t.request('GET', '/v1/admin/storage', { headers: someone.userHeaders })).status).toBe(403)
    const first = await t.request('GET', '/v1/admin/storage', { headers: operator.userHeaders })
    expect(first.status).toBe(200)
    expect(first.body.measured_at).toBeNull()
    await measure(t.modules.storage)
    const r = await t.request('GET', '/v1/admin/storage', { headers: operator.userHeaders })
    expect(r.body.tiers.map((x: { tier: string }) => x.tier)).toEqual(['raw', '1m', '10m', '1h', '1d'])
    const raw = r.body.tiers[0]
    expect(raw.bytes).toBeGreaterThan(0)
    expect(raw.oldest_at).toBe(new Date(START).toISOString())
    expect(r.body.rest_bytes).toBeGreaterThan(0)
    expect(r.body.budget).toBeNull()
    const sum = r.body.rest_bytes + r.body.tiers.reduce((a: number, x: { bytes: number }) => a + x.bytes, 0)
    expect(sum).toBe(r.body.database_bytes)
  }, 60_000)
})

describe('a budget as a share of the disk', () => {
  test('is taken of the size of the file system holding the data dir, as it is now', async () => {
    const t = testApp()
    let total = 8 * MB
    const d = deps(t, {
      settings: { budget: { kind: 'share', share: 0.25, text: '25%' }, diskWarnRatio: 0.9 },
      readDisk: () => ({ totalBytes: total, availableBytes: total / 2, usedRatio: 0.5 }),
    })
    expect(budgetBytes(d)).toBe(2 * MB)
    total = 40 * MB
    expect(budgetBytes(d)).toBe(10 * MB)
    expect((await storageReport(d)).budget).toMatchObject({ setting: '25%', bytes: 10 * MB })
  })
})

describe('the storage gauges', () => {
  test('the space per tier only once measured; the budget’s only with a budget; the disk always', async () => {
    const t = testApp()
    const names = async (d: StorageDeps) => (await storageGauges(d)).map((g) => (g.labels ? `${g.name}{${g.labels[0]![1]}}` : g.name))
    const none = deps(t)
    expect(await names(none)).toEqual(['vigil_storage_disk_free_ratio', 'vigil_storage_disk_warn_used_ratio'])
    await measure(none)
    expect(await names(none)).toContain('vigil_storage_tier_bytes{rest}')
    expect(await names(none)).toContain('vigil_storage_tier_bytes{raw}')
    const budgeted = deps(t, { settings: settings(50 * MB) })
    expect(await names(budgeted)).toContain('vigil_storage_budget_used_ratio')
    expect(await names(budgeted)).toContain('vigil_storage_budget_bytes')
  })
})
