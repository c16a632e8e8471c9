import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../../src/db/connection'
import { MIGRATIONS } from '../../../src/db/migrations.gen'
import { migrate } from '../../../src/db/migrate'
import { tierColumns, type MetricKind } from '../../../src/modules/metrics/metrics.fields'
import { runRetention, runRollup } from '../../../src/modules/metrics/metrics.jobs'
import { decodeSpan, encodeSpan, SPAN_MS } from '../../../src/modules/metrics/metrics.packed'
import { createPackedStore } from '../../../src/modules/metrics/metrics.packed.store'
import { createSeriesStore } from '../../../src/modules/metrics/metrics.series.store'
import { createMetricsStore } from '../../../src/modules/metrics/metrics.store'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { minuteRows } from './minute-rows'

const T0 = Date.UTC(2026, 0, 1)
const SEC = 1000
const MIN = 60_000
const HOUR = 3_600_000

/** a generator of numbers (seeded, so a failure repeats) */
function numbers(seed: number) {
  let s = seed >>> 0
  const next = () => {
    s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x9e3779b9) >>> 0
    return s / 2 ** 32
  }
  const specials = [0, -0, 1, -1, 5e-324, -5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 53, 2 ** 53 + 2, 0.1, 1 / 3, 1e300, Number.MIN_VALUE]
  return {
    next,
    value(): number | null {
      const r = next()
      if (r < 0.15) return null
      if (r < 0.3) return specials[Math.floor(next() * specials.length)]!
      if (r < 0.5) return Math.floor(next() * 1e9)
      if (r < 0.7) return Math.round(next() * 10_000) / 100
      // any bits but NaN's: the tier never holds NaN
      const f = new Float64Array(1)
      const u = new Uint32Array(f.buffer)
      do {
        u[0] = Math.floor(next() * 2 ** 32)
        u[1] = Math.floor(next() * 2 ** 32)
      } while (Number.isNaN(f[0]))
      return f[0]!
    },
  }
}

/** the same numbers bit for bit (Object.is tells -0 from 0), nulls as nulls */
const same = (a: (number | null)[][], b: (number | null)[][]) =>
  a.length === b.length && a.every((r, i) => r.length === b[i]!.length && r.every((v, j) => Object.is(v, b[i]![j])))

describe('the 1-minute tier coded per ten minutes', () => {
  test('every number comes back bit for bit, nulls kept, for any set of minutes; columns and minutes picked come back as read whole', () => {
    const g = numbers(27)
    const span = T0 + 7 * SPAN_MS
    for (const kind of ['hardware', 'network'] as MetricKind[]) {
      const cols = 1 + tierColumns(kind).length
      for (let round = 0; round < 300; round++) {
        const minutes = Array.from({ length: 10 }, (_, i) => i).filter(() => g.next() < 0.7)
        const rows = minutes.map((m) => [span + m * MIN, ...Array.from({ length: cols }, () => g.value())])
        // given in any order, read back oldest first
        const data = encodeSpan(span, [...rows].reverse(), cols)
        const back = decodeSpan(span, data, cols)
        expect(same(back, rows)).toBe(true)
        const pick = [0, 5, cols - 1, 3]
        const from = span + Math.floor(g.next() * 10) * MIN
        const picked = decodeSpan(span, data, cols, pick, from, from + 4 * MIN)
        const want = rows.filter((r) => r[0]! >= from && r[0]! < from + 4 * MIN).map((r) => [r[0]!, ...pick.map((c) => r[1 + c]!)])
        expect(same(picked, want)).toBe(true)
      }
    }
    // a minute outside the span is refused, not written somewhere else
    expect(() => encodeSpan(span, [[span + SPAN_MS, ...Array(61).fill(1)]], 61)).toThrow()
  })
})

const item = (i: number, ts: number) => ({
  recorded_at: new Date(ts).toISOString(),
  hardware: { ...hardwareSample(i), cpu_percent: ((i * 37.17) % 97) + 0.123456789, ram_percent: 40 + Math.sin(i) * 7.3 },
  network: { ...networkSample(i), download_mbps: (i * 3.3) % 11.1, bytes_recv_total: 1_000_000 + i * 1234 },
})

async function hub(opts: Parameters<typeof testApp>[0] = {}) {
  const t = testApp(opts)
  t.clock.set(T0)
  const a = await tenantWithDevices(t, 2)
  const post = async (items: ReturnType<typeof item>[], device = 0) => {
    const headers = { ...a.keyHeaders, 'x-device-id': a.deviceIds[device]! }
    // no sample from the future: the clock at the last one at least
    const last = Math.max(...items.map((i) => Date.parse(i.recorded_at)))
    if (t.clock.now() < last + SEC) t.clock.set(last + SEC)
    for (let i = 0; i < items.length; i += 500)
      expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 500) }, headers })).status).toBe(201)
  }
  return { t, a, post }
}

describe('the 1-minute tier on SQLite', () => {
  test('a late sample re-rolls its minute into the span already written; the span’s other minutes stay as they were', async () => {
    const { t, post } = await hub()
    await post(Array.from({ length: 3 * 360 }, (_, i) => item(i, T0 + i * 10 * SEC)))
    t.clock.set(T0 + 3 * HOUR + 35 * SEC)
    await runRollup(t.modules.metricsJobs)
    const before = minuteRows(t.db.sqlite)
    const late = T0 + HOUR + 23 * MIN + 5 * SEC
    t.clock.advance(MIN)
    await post([{ ...item(9999, late), hardware: { ...hardwareSample(0), cpu_percent: 1000 } }])
    await runRollup(t.modules.metricsJobs)
    const after = minuteRows(t.db.sqlite)
    const minute = Math.floor(late / MIN) * MIN
    expect(after.find((r) => r.bucket === minute)).toMatchObject({ n: 7, cpu_percent_max: 1000 })
    expect(after.filter((r) => r.bucket !== minute)).toEqual(before.filter((r) => r.bucket !== minute))
    expect(after).toHaveLength(before.length)
  })

  test('a summary kept between requests is read again once a late sample rewrites a span it covers', async () => {
    const { t, a, post } = await hub()
    await post(Array.from({ length: 3 * 360 }, (_, i) => item(i, T0 + i * 10 * SEC)))
    t.clock.set(T0 + 3 * HOUR + 35 * SEC)
    await runRollup(t.modules.metricsJobs)
    const user = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
    const summary = async () => {
      const r = await t.request('GET', `/v1/metrics/summary/${a.deviceId}?hours=6`, { headers: user })
      expect(r.status).toBe(200)
      return r.text
    }
    const max = (text: string) => (JSON.parse(text) as { hardware: { fields: { cpu_percent: { max: number } } } }).hardware.fields.cpu_percent.max
    const before = await summary()
    expect(await summary()).toBe(before)
    expect(max(before)).toBeLessThan(100)
    // at the same moment: the same window, so the rows kept for it would answer again
    await post([{ ...item(9999, T0 + HOUR + 5 * SEC), hardware: { ...hardwareSample(0), cpu_percent: 1000 } }])
    await runRollup(t.modules.metricsJobs)
    expect(max(await summary())).toBe(1000)
  })

  test('an instance upgraded with 1-minute rows of the earlier form reads them as before; a late minute re-rolled after the upgrade is read from its coded span', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-minutes-upgrade-'))
    try {
      const file = join(dir, 'vigil.db')
      // the instance before the upgrade: migrated up to 0021, its 1-minute tier as rows
      const old = openDatabase(file)
      migrate(old.sqlite, T0, MIGRATIONS.slice(0, 22))
      expect(old.sqlite.query("SELECT name FROM sqlite_master WHERE name = 'metric_hw_1m_packed'").get()).toBeNull()
      old.close()
      const { t, a, post } = await hub({ db: openDatabase(file) })
      await post(Array.from({ length: 6 * 360 }, (_, i) => item(i, T0 + i * 10 * SEC)))
      await post(
        Array.from({ length: 360 }, (_, i) => item(i + 7, T0 + i * 10 * SEC)),
        1,
      )
      t.clock.set(T0 + 6 * HOUR + 35 * SEC)
      await runRollup(t.modules.metricsJobs)
      const iso = (ms: number) => new Date(ms).toISOString()
      /** what the hub answers and holds of the 1-minute tier, read through the API and the stores */
      const answers = async (app: TestApp) => {
        const user = { authorization: `Bearer ${await app.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
        const get = async (path: string) => {
          const r = await app.request('GET', path, { headers: user })
          expect(r.status).toBe(200)
          return r.text
        }
        return {
          series: await get(
            `/v1/metrics/series/${a.deviceId}?kind=hardware&fields=cpu_percent,ram_percent&resolution=1m&start=${iso(T0 + 17 * SEC)}&end=${iso(T0 + 6 * HOUR)}`,
          ),
          net: await get(`/v1/metrics/series/${a.deviceId}?kind=network&fields=download_mbps&resolution=1m&start=${iso(T0)}&end=${iso(T0 + 5 * HOUR)}`),
          summary: await get(`/v1/metrics/summary/${a.deviceId}?hours=6`),
          minutes: minuteRows(app.db.sqlite),
          net1m: minuteRows(app.db.sqlite, 'network'),
          cpu: createSeriesStore(app.db.sqlite).cpuMinutes([1, 2], T0, T0 + 6 * HOUR),
          device: createMetricsStore(app.db.sqlite).tierValues('hardware', '1m', 1, T0 + 17 * SEC, T0 + 6 * HOUR),
        }
      }
      const want = await answers(t)
      expect(want.minutes.length).toBe(360 + 60)
      expect(want.device.length).toBe(359)
      expect(want.cpu.length).toBe(360 + 60)
      expect((JSON.parse(want.series) as { values: { cpu_percent: (number | null)[] } }).values.cpu_percent.filter((v) => v !== null).length).toBeGreaterThan(
        300,
      )
      // as the earlier release kept them: one row per device and minute; the coded tables not made yet
      for (const kind of ['hardware', 'network'] as MetricKind[]) {
        const names = ['device_seq', 'bucket', 'n', ...tierColumns(kind)]
        const table = kind === 'hardware' ? 'metric_hw_1m' : 'metric_net_1m'
        const ins = t.db.sqlite.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
        for (const r of minuteRows(t.db.sqlite, kind)) ins.run(...names.map((n) => r[n]!))
        t.db.sqlite.run(`DROP TABLE ${table}_packed`)
      }
      t.db.sqlite.run("DELETE FROM __vigil_migrations WHERE tag = '0022_metric_minutes_packed'")
      t.db.close()
      // the upgrade: the same file opened by this release
      const up = testApp({ db: openDatabase(file) })
      up.clock.set(T0 + 6 * HOUR + 35 * SEC)
      expect(up.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_hw_1m_packed').get()!.n).toBe(0)
      expect(await answers(up)).toEqual(want)
      // the 10-minute tier rolled again from the earlier form's rows gives the same rows
      const tenMinutes = () => up.db.sqlite.query('SELECT * FROM metric_hw_10m ORDER BY device_seq, bucket').all()
      const ten = tenMinutes()
      up.db.sqlite.run('DELETE FROM metric_hw_10m')
      up.db.sqlite.run("DELETE FROM metric_rollups WHERE tier = '10m'")
      await runRollup(up.modules.metricsJobs)
      expect(tenMinutes()).toEqual(ten)
      // a late sample of an old minute: written in a coded span, read from it, the earlier row left as it was
      const late = T0 + 2 * HOUR + 3 * MIN + 5 * SEC
      up.clock.advance(MIN)
      const headers = JSON.parse(JSON.stringify(a.keyHeaders)) as Record<string, string>
      const r = await up.request('POST', '/v1/metrics/bulk', {
        body: { items: [{ ...item(1, late), hardware: { ...hardwareSample(0), cpu_percent: 1000 } }] },
        headers: { ...headers, 'x-device-id': a.deviceIds[0]! },
      })
      expect(r.status).toBe(201)
      await runRollup(up.modules.metricsJobs)
      const minute = Math.floor(late / MIN) * MIN
      // (and the look-back's minute, rolled again at each run, now in a coded span too, with the same figures)
      const spans = up.db.sqlite.query<{ span: number }, []>('SELECT span FROM metric_hw_1m_packed WHERE device_seq = 1 ORDER BY span').all()
      expect(spans.map((r) => r.span)).toEqual([Math.floor(late / SPAN_MS) * SPAN_MS, T0 + 6 * HOUR - SPAN_MS])
      const now = minuteRows(up.db.sqlite)
      expect(now.find((m) => m.device_seq === 1 && m.bucket === minute)).toMatchObject({ n: 7, cpu_percent_max: 1000 })
      expect(now.filter((m) => m.bucket !== minute)).toEqual(want.minutes.filter((m) => m.bucket !== minute))
      up.db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test('the tier’s first and last minute are the furthest out of its coded spans and its rows of the earlier form, either form at either end', async () => {
    const { t } = await hub()
    const store = createPackedStore(t.db.sqlite)
    const [one, two] = t.db.sqlite
      .query<{ seq: number }, []>('SELECT seq FROM devices ORDER BY seq')
      .all()
      .map((r) => r.seq) as [number, number]
    const row = (bucket: number) => [bucket, 1, ...tierColumns('hardware').map(() => 1)]
    const names = ['device_seq', 'bucket', 'n', ...tierColumns('hardware')]
    const earlier = (seq: number, bucket: number) =>
      t.db.sqlite.run(`INSERT INTO metric_hw_1m (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`, [seq, ...row(bucket)])
    const ends = (seqs: number[]) => [store.oldest('hardware', seqs), store.newest('hardware', seqs)]
    expect(ends([one, two])).toEqual([null, null])
    earlier(two, T0 - MIN)
    earlier(two, T0 + 40 * MIN)
    expect(ends([two])).toEqual([T0 - MIN, T0 + 40 * MIN])
    store.write('hardware', one, [row(T0 + 3 * MIN), row(T0 + 5 * MIN)])
    expect(ends([one])).toEqual([T0 + 3 * MIN, T0 + 5 * MIN])
    // the earlier form's rows lie further out at both ends
    expect(ends([one, two])).toEqual([T0 - MIN, T0 + 40 * MIN])
    // then the coded spans do
    store.write('hardware', two, [row(T0 - HOUR), row(T0 + HOUR)])
    expect(ends([one, two])).toEqual([T0 - HOUR, T0 + HOUR])
  })

  test('retention and the disk budget prune the tier minute by minute, a span the cut-off falls in kept from the cut-off on', async () => {
    const retention = { raw: 7 * 86400, m1: 2 * 3600 + 25 * 60, m10: 30 * 86400, h1: 365 * 86400, d1: 5 * 365 * 86400 }
    const { t, post } = await hub({ config: { metricsRetention: retention } })
    await post(Array.from({ length: 4 * 360 }, (_, i) => item(i, T0 + i * 10 * SEC)))
    await post(
      Array.from({ length: 4 * 360 }, (_, i) => item(i, T0 + i * 10 * SEC)),
      1,
    )
    t.clock.set(T0 + 4 * HOUR + 35 * SEC)
    await runRollup(t.modules.metricsJobs)
    // legacy rows of an earlier release beside the coded spans (a minute before any span)
    const names = ['device_seq', 'bucket', 'n', ...tierColumns('hardware')]
    const first = minuteRows(t.db.sqlite)[0]!
    t.db.sqlite.run(
      `INSERT INTO metric_hw_1m (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
      names.map((n) => (n === 'bucket' ? T0 - MIN : first[n]!)),
    )
    const all = minuteRows(t.db.sqlite)
    expect(all).toHaveLength(2 * 240 + 1)
    t.clock.set(T0 + 4 * HOUR)
    await runRetention(t.modules.metricsJobs)
    const cutoff = T0 + 4 * HOUR - retention.m1 * 1000
    expect(cutoff % SPAN_MS).not.toBe(0)
    expect(minuteRows(t.db.sqlite)).toEqual(all.filter((r) => r.bucket! >= cutoff))
    // the disk budget's step on the tier: the same cut, and what it counts is minutes
    const cut = cutoff + 12 * MIN
    const left = minuteRows(t.db.sqlite).length
    const n = await t.modules.storage.metrics.pruneStep('1m', cut)
    const kept = minuteRows(t.db.sqlite)
    expect(kept).toEqual(all.filter((r) => r.bucket! >= cut))
    expect(n).toBe(2 * (left - kept.length))
  })

  test('a deleted device’s minutes go with it, coded and of the earlier form; the other device keeps its own', async () => {
    const { t, a, post } = await hub()
    await post(Array.from({ length: 360 }, (_, i) => item(i, T0 + i * 10 * SEC)))
    await post(
      Array.from({ length: 360 }, (_, i) => item(i, T0 + i * 10 * SEC)),
      1,
    )
    t.clock.set(T0 + HOUR + 35 * SEC)
    await runRollup(t.modules.metricsJobs)
    const names = ['device_seq', 'bucket', 'n', ...tierColumns('hardware')]
    const old = minuteRows(t.db.sqlite)[0]!
    t.db.sqlite.run(
      `INSERT INTO metric_hw_1m (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
      names.map((n) => (n === 'bucket' ? T0 - MIN : old[n]!)),
    )
    const seqOf = (id: string) => t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(id)!.seq
    const gone = seqOf(a.deviceIds[0]!)
    const stays = seqOf(a.deviceIds[1]!)
    const before = minuteRows(t.db.sqlite).filter((r) => r.device_seq === stays)
    expect(before).toHaveLength(60)
    t.db.sqlite.run('DELETE FROM devices WHERE seq = ?', [gone])
    const count = (table: string) => t.db.sqlite.query<{ n: number }, [number]>(`SELECT count(*) AS n FROM ${table} WHERE device_seq = ?`).get(gone)!.n
    for (const table of ['metric_hw_1m_packed', 'metric_net_1m_packed', 'metric_hw_1m']) expect(count(table)).toBe(0)
    expect(minuteRows(t.db.sqlite)).toEqual(before)
  })
})
