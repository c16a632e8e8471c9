import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { FIELDS, KIND_BIT, restColumn, TIERS, type MetricKind } from '../../../src/modules/metrics/metrics.fields'
import { runRetention, runRollup } from '../../../src/modules/metrics/metrics.jobs'
import { toRecord } from './record-shape'
import { historyJson, metricsStats, summarizeDevice } from '../../../src/modules/metrics/metrics.service'
import { fieldSeriesOf } from '../../../src/modules/metrics/metrics.field-series'
import { tenantWithDevices } from '../../helpers/metrics'
import { minuteRows } from './minute-rows'

const START = Date.parse('2026-01-01T00:00:00Z')
const STEP = 10_000
const HOURS = 3

/** Deterministic but irregular values; cpu_temp_c is missing from every 7th sample; the byte counter resets once. */
function sample(i: number) {
  const cpu = (i * 37) % 101
  return {
    hardware: { cpu_percent: cpu + 0.5, ram_used_gb: 2 + ((i * 13) % 17) / 10, cpu_temp_c: i % 7 === 0 ? null : 40 + (i % 23) },
    network: { bytes_sent_total: i < 500 ? 10_000 + i * 300 : (i - 500) * 120, download_mbps: (i % 11) * 1.5 },
  }
}

async function fill(t: TestApp, headers: Record<string, string>) {
  const n = (HOURS * 3600_000) / STEP
  for (let i = 0; i < n; i++) {
    t.clock.set(START + i * STEP)
    const r = await t.request('POST', '/v1/metrics/batch', { body: sample(i), headers })
    if (r.status !== 201) throw new Error(r.text)
  }
  return n
}

interface RawRow {
  ts: number
  cpu_percent: number
  ram_used_gb: number
  cpu_temp_c: number | null
}

function expected(rows: RawRow[], field: keyof RawRow, from: number, to: number) {
  const vals = rows.filter((r) => r.ts >= from && r.ts < to && r[field] !== null).map((r) => r[field] as number)
  if (!vals.length) return null
  return { avg: vals.reduce((a, b) => a + b, 0) / vals.length, min: Math.min(...vals), max: Math.max(...vals), n: vals.length }
}

type PageQuery = { limit: number; offset: number; start_date?: string; end_date?: string }

/** What the API serves for a history page, parsed. */
const historyText = async (t: TestApp, clientId: string, kind: MetricKind, deviceId: string, q: PageQuery) =>
  new TextDecoder().decode(await historyJson(t.modules.metrics, clientId, kind, deviceId, q))

/** The same page built as objects from the stored rows (the records the API documents), for comparison. */
function recordPage(t: TestApp, kind: MetricKind, deviceId: string, q: PageQuery, total: number) {
  const hot = FIELDS[kind].map((f) => f.name).join(', ')
  const from = q.start_date ? Date.parse(q.start_date) : 0
  const to = q.end_date ? Date.parse(q.end_date) : Number.MAX_SAFE_INTEGER
  const rows = t.db.sqlite
    .query<Record<string, unknown>, [string, number, number, number, number]>(
      `SELECT id, ts, ${hot}, ${restColumn(kind)} AS rest FROM metric_samples WHERE device_seq = (SELECT seq FROM devices WHERE id = ?)
       AND ts >= ? AND ts <= ? AND kinds & ${KIND_BIT[kind]} ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`,
    )
    .all(deviceId, from, to, q.limit, q.offset)
  return { items: rows.map((r) => toRecord(kind, r, deviceId)), limit: q.limit, offset: q.offset, total }
}

/** A device with HOURS of samples, rolled up a minute after the last hour. */
async function rolledUp() {
  const t = testApp()
  const a = await tenantWithDevices(t)
  const n = await fill(t, a.keyHeaders)
  t.clock.set(START + HOURS * 3600_000 + 60_000)
  await runRollup(t.modules.metricsJobs)
  return { t, a, n }
}

describe('rollup job', () => {
  test('every tier matches the raw samples it summarises', async () => {
    const { t, n } = await rolledUp()
    const raw = t.db.sqlite.query<RawRow, []>('SELECT ts, cpu_percent, ram_used_gb, cpu_temp_c FROM metric_samples WHERE kinds & 1 ORDER BY ts').all()
    expect(raw).toHaveLength(n)
    for (const tier of TIERS.slice(0, 3)) {
      const rows =
        tier.name === '1m'
          ? (minuteRows(t.db.sqlite) as Record<string, number>[])
          : t.db.sqlite.query<Record<string, number>, []>(`SELECT * FROM metric_hw_${tier.name} ORDER BY bucket`).all()
      expect(rows.length).toBe((HOURS * 3600_000) / tier.ms)
      for (const row of rows) {
        for (const f of ['cpu_percent', 'ram_used_gb', 'cpu_temp_c'] as const) {
          const e = expected(raw, f, row.bucket!, row.bucket! + tier.ms)!
          expect(row[`${f}_avg`]).toBeCloseTo(e.avg, 9)
          expect([row[`${f}_min`], row[`${f}_max`], row[`${f}_n`]]).toEqual([e.min, e.max, e.n])
        }
        expect(row.n).toBe(tier.ms / STEP)
      }
    }
    // the day tier waits for its day to end
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM metric_hw_1d').get()).toEqual({ n: 0 })
  })

  test('summaries over tiers equal the raw figures; byte growth composes across buckets and resets', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    await fill(t, a.keyHeaders)
    const end = START + HOURS * 3600_000 - STEP
    t.clock.set(end + 60_000)
    await runRollup(t.modules.metricsJobs)
    t.clock.set(end)
    const raw = t.db.sqlite.query<RawRow, []>('SELECT ts, cpu_percent, ram_used_gb, cpu_temp_c FROM metric_samples WHERE kinds & 1 ORDER BY ts').all()
    const bytes = t.db.sqlite
      .query<{ v: number }, []>('SELECT bytes_sent_total AS v FROM metric_samples WHERE kinds & 2 ORDER BY ts')
      .all()
      .map((r) => r.v)
    let growth = 0
    for (let i = 1; i < bytes.length; i++) growth += bytes[i]! >= bytes[i - 1]! ? bytes[i]! - bytes[i - 1]! : bytes[i]!
    for (const [hours, resolution] of [
      [4, '1m'],
      [24, '10m'],
      [168, '1h'],
    ] as const) {
      const s = summarizeDevice(t.modules.metrics, a.clientId, a.deviceId, hours)
      expect(s.resolution).toBe(resolution)
      expect(s.hardware.samples).toBe(raw.length)
      expect(s.hardware.first_at).toBe(new Date(START).toISOString())
      expect(s.hardware.last_at).toBe(new Date(end).toISOString())
      for (const f of ['cpu_percent', 'ram_used_gb', 'cpu_temp_c'] as const) {
        const e = expected(raw, f, 0, Infinity)!
        const got = s.hardware.fields[f]!
        expect(got.avg!).toBeCloseTo(e.avg, 9)
        expect([got.min, got.max]).toEqual([e.min, e.max])
        expect(got.p95!).toBeLessThanOrEqual(e.max)
      }
      expect(s.hardware.fields.cpu_percent!.last).toBe(raw[raw.length - 1]!.cpu_percent)
      expect(s.network.bytes_sent_delta).toBe(growth)
    }
  })

  test('a late sample is rolled into the buckets it belongs to; reruns change nothing', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    await fill(t, a.keyHeaders)
    const now = START + HOURS * 3600_000 + 60_000
    t.clock.set(now)
    await runRollup(t.modules.metricsJobs)
    const late = START + 3600_000 + 5_000
    const r = await t.request('POST', '/v1/metrics/hardware', { body: { cpu_percent: 1000, recorded_at: new Date(late).toISOString() }, headers: a.keyHeaders })
    expect(r.status).toBe(201)
    t.clock.advance(60_000)
    await runRollup(t.modules.metricsJobs)
    for (const tier of TIERS.slice(0, 3)) {
      const bucket = Math.floor(late / tier.ms) * tier.ms
      const row =
        tier.name === '1m'
          ? minuteRows(t.db.sqlite)
              .filter((r) => r.bucket === bucket)
              .map((r) => ({ m: r.cpu_percent_max, n: r.n }))[0]
          : t.db.sqlite.query<{ m: number; n: number }, [number]>(`SELECT cpu_percent_max AS m, n FROM metric_hw_${tier.name} WHERE bucket = ?`).get(bucket)!
      expect(row).toEqual({ m: 1000, n: tier.ms / STEP + 1 })
    }
    const before = t.db.sqlite.query('SELECT * FROM metric_hw_10m ORDER BY bucket').all()
    await runRollup(t.modules.metricsJobs)
    expect(t.db.sqlite.query('SELECT * FROM metric_hw_10m ORDER BY bucket').all()).toEqual(before)
  })

  test("a field's series reads hourly averages; stats count rows", async () => {
    const { t, a, n } = await rolledUp()
    const series = await fieldSeriesOf(t.modules.metrics, a.clientId, a.deviceId, 'cpu_percent', 24)
    expect(series.map((p) => p.t)).toEqual([0, 1, 2].map((h) => START + h * 3600_000))
    const raw = t.db.sqlite.query<RawRow, []>('SELECT ts, cpu_percent, ram_used_gb, cpu_temp_c FROM metric_samples').all()
    expect(series[1]!.avg).toBeCloseTo(expected(raw, 'cpu_percent', START + 3600_000, START + 7200_000)!.avg, 9)
    await expect(fieldSeriesOf(t.modules.metrics, a.clientId, a.deviceId, 'nope', 24)).rejects.toMatchObject({ code: 'invalid_parameter' })
    expect(await metricsStats(t.modules.metrics)).toEqual({ metric_rows_hardware: n, metric_rows_network: n, ingest_last_hour: 2 * 354 })
  })

  test('the jobs are in the one job list', () => {
    expect(testApp().jobs.map((j) => j.name)).toEqual(expect.arrayContaining(['metrics.rollup', 'metrics.retention']))
  })
})

describe('history over rolled-up data', () => {
  test('totals from the hourly tier equal raw counts; the JSON page equals the records', async () => {
    const { t, a, n } = await rolledUp()
    const count = (from: number, to: number) =>
      t.db.sqlite.query<{ n: number }, [number, number]>('SELECT count(*) AS n FROM metric_samples WHERE ts >= ? AND ts <= ?').get(from, to)!.n
    const ranges: [number, number][] = [
      [0, Number.MAX_SAFE_INTEGER],
      [START + 1234_567, START + 3 * 3600_000 - 77_000],
      [START + 3600_000, START + 2 * 3600_000 - 1],
      [START + 3600_000, START + 3 * 3600_000],
      [START + 5_000, START + 4000_000],
    ]
    for (const [from, to] of ranges) {
      const q = { limit: 5, offset: 3, start_date: new Date(from).toISOString(), end_date: new Date(Math.min(to, 8.64e15)).toISOString() }
      const text = (kind: MetricKind) => historyText(t, a.clientId, kind, a.deviceId, q)
      expect(JSON.parse(await text('hardware')).total).toBe(count(from, to))
      // the bytes are exactly what JSON.stringify makes of the object-built page
      expect(await text('hardware')).toBe(JSON.stringify(recordPage(t, 'hardware', a.deviceId, q, count(from, to))))
      expect(await text('network')).toBe(JSON.stringify(recordPage(t, 'network', a.deviceId, q, count(from, to))))
    }
    expect(JSON.parse(await historyText(t, a.clientId, 'hardware', a.deviceId, { limit: 1, offset: 0 })).total).toBe(n)
  })
})

describe('retention job', () => {
  test('each level keeps its own span; long summaries still come from the tiers', async () => {
    const retention = { raw: 3600, m1: 7200, m10: 86400, h1: 86400 * 365, d1: 86400 * 365 * 5 }
    const t = testApp({ config: { metricsRetention: retention } })
    const a = await tenantWithDevices(t)
    const n = await fill(t, a.keyHeaders)
    const now = START + HOURS * 3600_000
    t.clock.set(now + 60_000)
    await runRollup(t.modules.metricsJobs)
    t.clock.set(now)
    const deleted = await runRetention(t.modules.metricsJobs)
    const oldest = (table: string, col: string) => t.db.sqlite.query<{ t: number }, []>(`SELECT min(${col}) AS t FROM ${table}`).get()!.t
    expect(oldest('metric_samples', 'ts')).toBe(now - 3600_000)
    expect(minuteRows(t.db.sqlite)[0]!.bucket).toBe(now - 7200_000)
    expect(oldest('metric_hw_10m', 'bucket')).toBe(START)
    const left = t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
    expect(left).toBe(360)
    // the history total counts what raw still holds, though the tiers reach further back
    expect(JSON.parse(await historyText(t, a.clientId, 'hardware', a.deviceId, { limit: 1, offset: 0 })).total).toBe(360)
    expect(deleted).toBe(n - 360 + (HOURS * 60 - 120) * 2)
    const s = summarizeDevice(t.modules.metrics, a.clientId, a.deviceId, 24)
    expect(s.hardware.samples).toBe(n)
    expect(s.hardware.first_at).toBe(new Date(START).toISOString())
    // the freed pages went back (auto_vacuum = INCREMENTAL)
    expect(t.db.sqlite.query('PRAGMA freelist_count').get()).toEqual({ freelist_count: 0 })
    // running it again finds nothing more to do
    expect(await runRetention(t.modules.metricsJobs)).toBe(0)
  })
})
