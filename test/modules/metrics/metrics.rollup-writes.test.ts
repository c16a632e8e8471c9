import { describe, expect, test } from 'bun:test'
import { runRetention, runRollup } from '../../../src/modules/metrics/metrics.jobs'
import { GRACE_MS } from '../../../src/modules/metrics/metrics.rollup'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { minuteRows } from './minute-rows'

const T0 = Date.UTC(2026, 0, 1)
const MIN = 60_000

/**
 * Counts the rows written to the hardware tiers (a row written anew or one written again in its
 * place), with temporary triggers; the 1-minute tier's rows are its coded spans of ten minutes.
 */
function countWrites(t: TestApp) {
  const tiers = ['metric_hw_1m_packed', 'metric_hw_10m', 'metric_hw_1h', 'metric_hw_1d']
  t.db.sqlite.run('CREATE TEMP TABLE writes (tier TEXT)')
  for (const tier of tiers) {
    for (const op of ['INSERT', 'UPDATE']) {
      t.db.sqlite.run(`CREATE TEMP TRIGGER count_${op}_${tier} AFTER ${op} ON main.${tier} BEGIN INSERT INTO temp.writes VALUES ('${tier}'); END`)
    }
  }
  return () => {
    const rows = t.db.sqlite.query<{ tier: string; n: number }, []>('SELECT tier, count(*) AS n FROM temp.writes GROUP BY tier').all()
    t.db.sqlite.run('DELETE FROM temp.writes')
    return Object.fromEntries(rows.map((r) => [r.tier, r.n]))
  }
}

/**
 * The rollup job rewrites only what changed: each tier row it writes is a page of the disk
 * written twice (log, checkpoint). Counted with temporary triggers on the tier tables.
 */
describe('rollup writes', () => {
  test('at a collector cadence a run writes nothing until a span is whole, then each device its ten minutes at once', async () => {
    const t = testApp()
    t.clock.set(T0)
    const a = await tenantWithDevices(t)
    const post = async (from: number, n: number) => {
      const items = Array.from({ length: n }, (_, i) => ({
        recorded_at: new Date(from + i * 10_000).toISOString(),
        hardware: hardwareSample(i % 3),
        network: networkSample(i % 2),
      }))
      for (let i = 0; i < items.length; i += 500) {
        expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 500) }, headers: a.keyHeaders })).status).toBe(201)
      }
    }
    await post(T0 - 3 * 60 * MIN, 3 * 60 * 6)
    const writes = countWrites(t)
    t.clock.set(T0 + MIN)
    await runRollup(t.modules.metricsJobs)
    expect(writes().metric_hw_1h).toBeGreaterThan(0) // the first run rolls everything up
    // each minute a device posts six samples: the runs within a span write no tier row (the look-back
    // rolls the last finished minute again and finds its figures unchanged); before, each wrote the new
    // minute, a page of the device's in every 1m table
    for (let m = 0; m < 9; m++) {
      await post(T0 + m * MIN, 6)
      t.clock.set(T0 + (m + 1) * MIN + 35_000)
      await runRollup(t.modules.metricsJobs)
      expect(writes()).toEqual({})
    }
    // the span's last minute: its ten minutes in one write, one coded row
    await post(T0 + 9 * MIN, 6)
    t.clock.set(T0 + 10 * MIN + 35_000)
    await runRollup(t.modules.metricsJobs)
    expect(writes()).toEqual({ metric_hw_1m_packed: 1 })
    // the 10m tier in whole hours, with the hour and its six ten minutes
    t.clock.set(T0 + 60 * MIN + 35_000)
    await post(T0 + 10 * MIN, 50 * 6)
    await runRollup(t.modules.metricsJobs)
    expect(writes()).toEqual({ metric_hw_1m_packed: 5, metric_hw_10m: 6, metric_hw_1h: 1 })
  })
  test('a run writes the progress mark of the tiers that finished a new span only', async () => {
    const t = testApp()
    t.clock.set(T0)
    const a = await tenantWithDevices(t)
    const items = Array.from({ length: 6 * 30 }, (_, i) => ({
      recorded_at: new Date(T0 - 30 * MIN + i * 10_000).toISOString(),
      hardware: hardwareSample(i % 3),
      network: networkSample(i % 2),
    }))
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })).status).toBe(201)
    t.clock.set(T0 + MIN)
    await runRollup(t.modules.metricsJobs)
    t.db.sqlite.run('CREATE TEMP TABLE marks (kind TEXT, tier TEXT)')
    t.db.sqlite.run('CREATE TEMP TRIGGER count_marks AFTER INSERT ON main.metric_rollups BEGIN INSERT INTO temp.marks VALUES (NEW.kind, NEW.tier); END')
    const marks = () => {
      const rows = t.db.sqlite.query<{ m: string }, []>("SELECT kind || ' ' || tier AS m FROM temp.marks ORDER BY m").all()
      t.db.sqlite.run('DELETE FROM temp.marks')
      return rows.map((r) => r.m)
    }
    // a minute later: no span is finished
    t.clock.advance(MIN)
    await runRollup(t.modules.metricsJobs)
    expect(marks()).toEqual([])
    // past the next 10 minutes: the 1m tier's mark moves, not the 10m tier's (rolled in whole hours)
    t.clock.set(T0 + 10 * MIN + GRACE_MS)
    await runRollup(t.modules.metricsJobs)
    expect(marks()).toEqual(['hardware 1m', 'network 1m'])
    expect(await t.modules.metricsJobs.rollups.doneUntil('hardware', '1m')).toBe(T0 + 10 * MIN)
    // past the hour: every tier but the day's
    t.clock.set(T0 + 60 * MIN + GRACE_MS)
    await runRollup(t.modules.metricsJobs)
    expect(marks()).toEqual(['hardware 10m', 'hardware 1h', 'hardware 1m', 'network 10m', 'network 1h', 'network 1m'])
    expect(await t.modules.metricsJobs.rollups.doneUntil('hardware', '10m')).toBe(T0 + 60 * MIN)
  })
  test('samples arriving late (a replay two hours back) re-roll the minutes they fall in, not every minute from them to now', async () => {
    const t = testApp()
    t.clock.set(T0)
    const a = await tenantWithDevices(t)
    const post = async (from: number, n: number) => {
      const items = Array.from({ length: n }, (_, i) => ({
        recorded_at: new Date(from + i * 10_000).toISOString(),
        hardware: hardwareSample(i % 3),
        network: networkSample(i % 2),
      }))
      for (let i = 0; i < items.length; i += 500) {
        expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 500) }, headers: a.keyHeaders })).status).toBe(201)
      }
    }
    // three hours of samples, rolled up
    await post(T0 - 3 * 60 * MIN, 3 * 60 * 6)
    t.clock.set(T0 + MIN)
    await runRollup(t.modules.metricsJobs)
    t.db.sqlite.run('CREATE TEMP TABLE writes (bucket INTEGER)')
    for (const op of ['INSERT', 'UPDATE']) {
      t.db.sqlite.run(`CREATE TEMP TRIGGER count_${op} AFTER ${op} ON main.metric_hw_1m_packed BEGIN INSERT INTO temp.writes VALUES (NEW.span); END`)
    }
    // a part of five minutes two hours back arrives again with other readings (a collector's replay),
    // beside a sample of now
    await post(T0 - 2 * 60 * MIN + 15_000, 5 * 6)
    await post(T0 + MIN - 5_000, 1)
    t.clock.advance(MIN)
    await runRollup(t.modules.metricsJobs)
    const buckets = t.db.sqlite
      .query<{ bucket: number }, []>('SELECT DISTINCT bucket FROM temp.writes ORDER BY bucket')
      .all()
      .map((r) => (r.bucket - T0) / MIN)
    // the ten minutes holding the six minutes the replay touched, where every minute from the replay
    // to now was rolled again before; the look-back's minute is unchanged, the sample of now waits for its span
    expect(buckets).toEqual([-120])
  })
  test('a bucket rolled again is rewritten in place: its row keeps its place in the table, with the new figures; a minute in its span', async () => {
    const t = testApp()
    t.clock.set(T0)
    const a = await tenantWithDevices(t)
    const post = async (from: number, n: number, load: number) => {
      const items = Array.from({ length: n }, (_, i) => ({
        recorded_at: new Date(from + i * 10_000).toISOString(),
        hardware: { ...hardwareSample(0), cpu_percent: load },
        network: networkSample(0),
      }))
      expect((await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })).status).toBe(201)
    }
    await post(T0 - 2 * 60 * MIN, 3, 10)
    t.clock.set(T0 + MIN)
    await runRollup(t.modules.metricsJobs)
    const row = (table: string) =>
      t.db.sqlite
        .query<{ rowid: number; n: number; cpu_percent_max: number }, [number]>(`SELECT rowid, n, cpu_percent_max FROM ${table} WHERE bucket = ?`)
        .get(T0 - 2 * 60 * MIN)!
    const minute = () => minuteRows(t.db.sqlite).map((r) => ({ bucket: r.bucket, n: r.n, cpu_percent_max: r.cpu_percent_max }))
    const spans = () => t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_hw_1m_packed').get()!.n
    const before = { hour: row('metric_hw_1h') }
    expect(minute()).toEqual([{ bucket: T0 - 2 * 60 * MIN, n: 3, cpu_percent_max: 10 }])
    // late samples of the same minute and hour
    await post(T0 - 2 * 60 * MIN + 30_000, 3, 90)
    t.clock.advance(MIN)
    await runRollup(t.modules.metricsJobs)
    // INSERT OR REPLACE deleted the row and appended it at the table's end: two pages written, not one
    expect(minute()).toEqual([{ bucket: T0 - 2 * 60 * MIN, n: 6, cpu_percent_max: 90 }])
    expect(spans()).toBe(1)
    expect(row('metric_hw_1h')).toEqual({ rowid: before.hour.rowid, n: 6, cpu_percent_max: 90 })
  })
})

describe('rollup spans and retention', () => {
  test('with raw samples kept only minutes, the 1-minute tier is rolled minute by minute: no sample is pruned before it is rolled up', async () => {
    const retention = { raw: 5 * 60, m1: 3 * 86400, m10: 30 * 86400, h1: 365 * 86400, d1: 5 * 365 * 86400 }
    const t = testApp({ config: { metricsRetention: retention } })
    t.clock.set(T0)
    const a = await tenantWithDevices(t)
    for (let m = 0; m < 8; m++) {
      const items = Array.from({ length: 6 }, (_, i) => ({ recorded_at: new Date(T0 + m * MIN + i * 10_000).toISOString(), hardware: hardwareSample(i) }))
      t.clock.set(T0 + m * MIN + 59_000)
      expect((await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })).status).toBe(201)
      t.clock.set(T0 + (m + 1) * MIN + 35_000)
      await runRollup(t.modules.metricsJobs)
    }
    expect(await t.modules.metricsJobs.rollups.doneUntil('hardware', '1m')).toBe(T0 + 8 * MIN)
    await runRetention(t.modules.metricsJobs)
    const minutes = minuteRows(t.db.sqlite)
    expect(minutes.map((r) => r.n)).toEqual([6, 6, 6, 6, 6, 6, 6, 6])
  })
})
