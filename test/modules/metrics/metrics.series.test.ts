import { describe, expect, test } from 'bun:test'
import { runRollup } from '../../../src/modules/metrics/metrics.jobs'
import { slotsPerBucket } from '../../../src/modules/metrics/metrics.series'
import { testApp, type TestApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.parse('2026-01-01T00:00:00Z')
const MIN = 60_000
const HOUR = 3_600_000

/** Stores `count` batches `stepMs` apart from `from` through the bulk endpoint (the clock must already be past them). */
async function seed(t: TestApp, headers: Record<string, string>, from: number, count: number, stepMs: number, cpu: (i: number) => number = (i) => i % 100) {
  for (let a = 0; a < count; a += 500) {
    const items = []
    for (let i = a; i < Math.min(count, a + 500); i++) {
      items.push({
        recorded_at: new Date(from + i * stepMs).toISOString(),
        hardware: { ...hardwareSample(i), cpu_percent: cpu(i), cpu_per_core: [i % 10, 50] },
        network: { ...networkSample(i), interfaces: [{ name: 'eth0', upload_mbps: 1, download_mbps: i % 7 }] },
      })
    }
    const r = await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers })
    if (r.status !== 201 || r.body.stored !== items.length) throw new Error(`bulk: ${r.status} ${r.text.slice(0, 200)}`)
  }
}

const get = (t: TestApp, id: string, query: string, headers: Record<string, string>) => t.request('GET', `/v1/metrics/series/${id}?${query}`, { headers })

/** A fresh access token at the clock's time (the tests move the clock past a token's lifetime). */
async function userHeaders(t: TestApp, a: { userId: string; clientId: string }) {
  return { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
}

describe('GET /v1/metrics/series/{device_id}', () => {
  test('the last hour at raw resolution: one point per sample, t in unix seconds, min/max empty', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + HOUR)
    const h = await userHeaders(t, a)
    await seed(t, a.keyHeaders, T0 + 30 * MIN, 180, 10_000)
    const r = await get(t, a.deviceId, 'kind=hardware&fields=cpu_percent,ram_percent', h)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({
      device_id: a.deviceId,
      kind: 'hardware',
      resolution: 'raw',
      step_seconds: 10,
      start: '2026-01-01T00:00:00.000Z',
      end: '2026-01-01T01:00:00.000Z',
      min: {},
      max: {},
      raw_from: '2026-01-01T00:30:00.000Z',
    })
    expect(r.body.t).toHaveLength(180)
    expect(r.body.t[0]).toBe((T0 + 30 * MIN) / 1000)
    expect(r.body.values.cpu_percent.slice(0, 3)).toEqual([0, 1, 2])
    expect(r.body.values.ram_percent[0]).toBe(41.2)
  })

  test('a tier over hours, completed from raw samples for the minutes not rolled up yet', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 6 * HOUR)
    const h = await userHeaders(t, a)
    // every 30 s for 6 hours: cpu is the minute of the hour, so each minute's average is known
    await seed(t, a.keyHeaders, T0, 720, 30_000, (i) => Math.floor(i / 2) % 60)
    await runRollup(t.modules.metricsJobs)
    // the rollup leaves the last minute (and the grace period) to raw samples
    expect(t.modules.metrics.store.doneUntil('hardware')['1m']).toBeLessThan(T0 + 6 * HOUR)

    const r = await get(t, a.deviceId, 'kind=hardware&fields=cpu_percent&start=2026-01-01T00:00:00Z&end=2026-01-01T06:00:00Z', h)
    expect(r.status).toBe(200)
    expect(r.body.resolution).toBe('1m')
    expect(r.body.step_seconds).toBe(60)
    expect(r.body.t).toHaveLength(360)
    expect(r.body.t.at(-1)).toBe((T0 + 6 * HOUR - MIN) / 1000)
    expect(r.body.values.cpu_percent.slice(0, 3)).toEqual([0, 1, 2])
    expect(r.body.values.cpu_percent.at(-1)).toBe(59)
    expect(r.body.min.cpu_percent.at(-1)).toBe(59)

    // hourly: the mean of 0..59 with min and max
    const hourly = await get(t, a.deviceId, 'kind=hardware&fields=cpu_percent&start=2026-01-01T00:00:00Z&end=2026-01-01T06:00:00Z&resolution=1h', h)
    expect(hourly.body.t).toEqual([0, 1, 2, 3, 4, 5].map((h) => (T0 + h * HOUR) / 1000))
    expect(hourly.body.values.cpu_percent).toEqual([29.5, 29.5, 29.5, 29.5, 29.5, 29.5])
    expect(hourly.body.min.cpu_percent[5]).toBe(0)
    expect(hourly.body.max.cpu_percent[5]).toBe(59)
  })

  test('a null point where data is missing for more than ~2 steps, at raw and at a tier', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 3 * HOUR)
    const h = await userHeaders(t, a)
    await seed(t, a.keyHeaders, T0, 60, 10_000) // 00:00–00:10
    await seed(t, a.keyHeaders, T0 + 30 * MIN, 60, 10_000) // 00:30–00:40, after 20 minutes without data
    await seed(t, a.keyHeaders, T0 + 40 * MIN + 10_000, 10, 10_000) // one missing sample at 00:40: still joined
    const raw = await get(t, a.deviceId, 'kind=hardware&fields=cpu_percent&start=2026-01-01T00:00:00Z&end=2026-01-01T01:00:00Z', h)
    expect(raw.body.resolution).toBe('raw')
    expect(raw.body.t).toHaveLength(131)
    expect(raw.body.t[60]).toBe((T0 + 59 * 10_000 + 10_000) / 1000)
    expect(raw.body.values.cpu_percent[60]).toBeNull()
    expect(raw.body.values.cpu_percent.filter((v: number | null) => v === null)).toHaveLength(1)

    await runRollup(t.modules.metricsJobs)
    const tier = await get(t, a.deviceId, 'kind=hardware&fields=cpu_percent&start=2026-01-01T00:00:00Z&end=2026-01-01T01:00:00Z&resolution=1m', h)
    expect(tier.body.t).toHaveLength(10 + 1 + 12)
    expect(tier.body.t[10]).toBe((T0 + 10 * MIN) / 1000)
    expect(tier.body.values.cpu_percent[10]).toBeNull()
  })

  test('nested families expand to family:key series, from raw samples at any resolution', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 6 * HOUR)
    const h = await userHeaders(t, a)
    await seed(t, a.keyHeaders, T0, 720, 30_000)
    await runRollup(t.modules.metricsJobs)
    const raw = await get(t, a.deviceId, 'kind=hardware&fields=cpu_per_core,disk_partitions,temperatures,cpu_percent', h)
    expect(raw.status).toBe(200)
    expect(Object.keys(raw.body.values).sort()).toEqual([
      'cpu_per_core:0',
      'cpu_per_core:1',
      'cpu_percent',
      'disk_partitions:/',
      'disk_partitions:/boot/firmware',
      'temperatures:cpu_thermal',
    ])
    expect(raw.body.values['disk_partitions:/'][0]).toBe(38.3)
    expect(raw.body.values['cpu_per_core:1'][0]).toBe(50)

    // three hours: 360 samples, every one read
    const tier = await get(t, a.deviceId, 'kind=hardware&fields=cpu_per_core,cpu_percent&start=2026-01-01T00:00:00Z&end=2026-01-01T03:00:00Z&resolution=10m', h)
    expect(tier.body.t).toHaveLength(18)
    // cpu_per_core:0 is i % 10 over 20 samples per 10 minutes: mean 4.5, min 0, max 9
    expect(tier.body.values['cpu_per_core:0']).toEqual(new Array(18).fill(4.5))
    expect(tier.body.min['cpu_per_core:0'][0]).toBe(0)
    expect(tier.body.max['cpu_per_core:0'][0]).toBe(9)
    expect(tier.body.values.cpu_percent).toHaveLength(18)

    const net = await get(t, a.deviceId, 'kind=network&fields=wifi,interfaces,download_mbps', h)
    expect(Object.keys(net.body.values).sort()).toEqual([
      'download_mbps',
      'interfaces:eth0:download_mbps',
      'interfaces:eth0:upload_mbps',
      'wifi:frequency_ghz',
      'wifi:signal_dbm',
    ])
  })

  test('nested families over more raw samples than one answer reads: evenly spread samples, every bucket filled', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 6 * HOUR)
    const h = await userHeaders(t, a)
    await seed(t, a.keyHeaders, T0, 2160, 10_000) // 6 h at 10 s: more than MAX_NESTED_SAMPLES
    await runRollup(t.modules.metricsJobs)
    const r = await get(t, a.deviceId, 'kind=hardware&fields=cpu_per_core,cpu_percent&start=2026-01-01T00:00:00Z&end=2026-01-01T06:00:00Z', h)
    expect(r.body.resolution).toBe('1m')
    expect(r.body.t).toHaveLength(360)
    const core0: number[] = r.body.values['cpu_per_core:0']
    expect(core0.every((v) => v !== null && v >= 0 && v <= 9)).toBe(true)
    // one sample per minute (its first): i % 10 for i = 6m
    expect(core0.slice(0, 3)).toEqual([0, 6, 2])
    expect(r.body.values['cpu_per_core:1']).toEqual(new Array(360).fill(50))
  })

  test('a range wider than raw samples hold: nested series start at raw_from', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 6 * HOUR)
    const h = await userHeaders(t, a)
    await seed(t, a.keyHeaders, T0, 720, 30_000)
    await runRollup(t.modules.metricsJobs)
    // raw samples before 03:00 pruned away (as the retention job does: sealed rows and hot ones); the tiers keep them
    t.db.sqlite.run('DELETE FROM main.metric_samples WHERE ts < ?', [T0 + 3 * HOUR])
    t.db.sqlite.run('DELETE FROM temp.metric_hot_rows WHERE ts < ?', [T0 + 3 * HOUR])
    const r = await get(t, a.deviceId, 'kind=hardware&fields=cpu_per_core,cpu_percent&start=2026-01-01T00:00:00Z&end=2026-01-01T06:00:00Z&resolution=1h', h)
    expect(r.body.raw_from).toBe('2026-01-01T03:00:00.000Z')
    expect(r.body.values.cpu_percent.every((v: number | null) => v !== null)).toBe(true)
    expect(r.body.values['cpu_per_core:0']).toEqual([null, null, null, 4.5, 4.5, 4.5])
  })

  test('auto picks the coarsest level giving ~300 points', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 90 * 86_400_000)
    const h = await userHeaders(t, a)
    const cases: [string, string][] = [
      ['2026-03-31T23:00:00Z', 'raw'],
      ['2026-03-31T18:00:00Z', '1m'],
      ['2026-03-25T00:00:00Z', '10m'],
      ['2026-03-01T00:00:00Z', '1h'],
      ['2026-01-01T00:00:00Z', '1h'],
    ]
    for (const [start, want] of cases) {
      const r = await get(t, a.deviceId, `kind=network&fields=latency_avg_ms&start=${start}`, h)
      expect([start, r.status, r.body.resolution]).toEqual([start, 200, want])
    }
  })

  test('422 for unknown fields, a bad range and too many points', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 60 * 86_400_000)
    const h = await userHeaders(t, a)
    const cases: [string, string][] = [
      ['fields=cpu_percent', 'kind'],
      ['kind=disk&fields=cpu_percent', 'kind'],
      ['kind=hardware', 'fields'],
      ['kind=hardware&fields=', 'fields'],
      ['kind=hardware&fields=,', 'fields'],
      ['kind=hardware&fields=cpu_percent,nope', 'fields'],
      ['kind=network&fields=cpu_percent', 'fields'],
      ['kind=hardware&fields=cpu_percent;drop', 'fields'],
      ['kind=hardware&fields=cpu_percent&start=yesterday', 'start'],
      ['kind=hardware&fields=cpu_percent&start=2026-02-01T00:00:00Z&end=2026-01-01T00:00:00Z', 'start'],
      ['kind=hardware&fields=cpu_percent&resolution=5m', 'resolution'],
      ['kind=hardware&fields=cpu_percent&start=2026-01-01T00:00:00Z&resolution=raw', 'resolution'],
      ['kind=hardware&fields=cpu_percent&start=2026-01-01T00:00:00Z&resolution=1m', 'resolution'],
      // nested families are read from raw samples: 1,000 points at most (a day at 1m is 1,440)
      ['kind=hardware&fields=cpu_per_core&start=2026-03-01T00:00:00Z&resolution=1m', 'resolution'],
    ]
    for (const [q, param] of cases) {
      const r = await get(t, a.deviceId, q, h)
      expect([q, r.status]).toEqual([q, 422])
      expect([q, r.body.detail[0].loc]).toEqual([q, ['query', param]])
    }
    // 10m over 30 days: 4,320 points, within the bound; the day of nested families at auto is 10m
    expect((await get(t, a.deviceId, 'kind=hardware&fields=cpu_percent&start=2026-01-31T00:00:00Z&resolution=10m', h)).status).toBe(200)
    const nested = await get(t, a.deviceId, 'kind=hardware&fields=cpu_per_core&start=2026-03-01T00:00:00Z', h)
    expect([nested.status, nested.body.resolution]).toEqual([200, '10m'])
  })

  test('401 without a token; another tenant’s device is 404', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const b = await createTenant(t)
    expect((await get(t, a.deviceId, 'kind=hardware&fields=cpu_percent', {})).status).toBe(401)
    const other = await get(t, a.deviceId, 'kind=hardware&fields=cpu_percent', b.userHeaders)
    expect(other.status).toBe(404)
    expect(other.body.error.code).toBe('not_found')
  })
})

describe('slots of a bucket whose samples are too many to read (metrics.series.ts)', () => {
  test('whole minutes where the bucket is, never more than asked, at least one', () => {
    const MIN = 60_000
    // a 10-minute bucket: 14 slots of 43 s asked become 10 of a minute; 7 become 5 of two minutes
    expect(slotsPerBucket(10 * MIN, 14)).toBe(10)
    expect(slotsPerBucket(10 * MIN, 7)).toBe(5)
    expect(slotsPerBucket(10 * MIN, 2)).toBe(2)
    expect(slotsPerBucket(10 * MIN, 1)).toBe(1)
    // an hour: 60's divisors; a day: 1,440's
    expect(slotsPerBucket(60 * MIN, 8)).toBe(6)
    expect(slotsPerBucket(1440 * MIN, 7)).toBe(6)
    // a bucket of a minute is one slot; a bucket not of whole minutes is cut as asked
    expect(slotsPerBucket(MIN, 6)).toBe(1)
    expect(slotsPerBucket(90_000, 4)).toBe(4)
    for (const width of [MIN, 10 * MIN, 60 * MIN, 1440 * MIN])
      for (let most = 1; most <= 400; most++) {
        const n = slotsPerBucket(width, most)
        expect(n).toBeGreaterThanOrEqual(1)
        expect(n).toBeLessThanOrEqual(most)
        expect((width / n) % MIN).toBe(0)
      }
  })
})
