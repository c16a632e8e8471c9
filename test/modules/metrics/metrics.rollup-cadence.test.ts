import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../../src/db/connection'
import { fieldSeriesOf, fieldSeriesReader } from '../../../src/modules/metrics/metrics.field-series'
import type { TierName } from '../../../src/modules/metrics/metrics.fields'
import { runRollup } from '../../../src/modules/metrics/metrics.jobs'
import { ROLL_STEPS } from '../../../src/modules/metrics/metrics.rollup.store'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { minuteRows } from './minute-rows'

const T0 = Date.UTC(2026, 0, 1)
const SEC = 1000
const MIN = 60_000
const HOUR = 3_600_000
/** each tier rolled bucket by bucket, as the job did before ROLL_STEPS */
const MINUTE_BY_MINUTE: Partial<Record<TierName, number>> = { '1m': MIN, '10m': 10 * MIN }

/** The readings of sample i: figures with many bits (a sum in another order would show), counters that grow and reset. */
const item = (i: number, ts: number) => ({
  recorded_at: new Date(ts).toISOString(),
  hardware: {
    ...hardwareSample(i),
    cpu_percent: ((i * 37.17) % 97) + 0.123456789,
    ram_percent: 40 + Math.sin(i) * 7.3,
    disk_used_percent: 50 + i * 0.0137,
  },
  network: { ...networkSample(i), download_mbps: (i * 3.3) % 11.1, bytes_recv_total: i % 500 === 499 ? 7 : 1_000_000 + i * 1234 },
})

/** One hub of a device posting every 10 s, its rollup job run at second 35 of each minute with the given spans. */
async function hub(steps: Partial<Record<TierName, number>>) {
  const t = testApp()
  t.clock.set(T0)
  const a = await tenantWithDevices(t)
  const user = async () => ({ authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` })
  const post = async (items: ReturnType<typeof item>[]) => {
    for (let i = 0; i < items.length; i += 500) {
      const r = await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 500) }, headers: a.keyHeaders })
      expect(r.status).toBe(201)
    }
  }
  return { t, a, user, post, roll: () => runRollup(t.modules.metricsJobs, { steps }) }
}
type Hub = Awaited<ReturnType<typeof hub>>

/** Every read of the tiers, as a user of the device sees them at the hub's clock. */
async function reads(h: Hub) {
  const { t, a } = h
  const headers = await h.user()
  const now = t.clock.now()
  const iso = (ms: number) => new Date(ms).toISOString()
  const get = async (path: string) => {
    const r = await t.request('GET', path, { headers })
    expect(r.status).toBe(200)
    return r.body
  }
  const out: Record<string, unknown> = {}
  for (const [resolution, span] of [
    ['1m', HOUR],
    ['1m', 6 * HOUR],
    ['10m', 24 * HOUR],
    ['1h', 72 * HOUR],
    ['auto', 2 * HOUR],
    ['auto', 12 * HOUR],
  ] as const) {
    for (const [kind, fields] of [
      ['hardware', 'cpu_percent,ram_percent,disk_used_percent'],
      ['network', 'download_mbps'],
    ]) {
      const q = `kind=${kind}&fields=${fields}&resolution=${resolution}&start=${iso(now - span)}&end=${iso(now)}`
      out[`series ${q}`] = await get(`/v1/metrics/series/${a.deviceId}?${q}`)
    }
    // a range ending mid-minute, away from now
    const q = `kind=hardware&fields=cpu_percent&resolution=${resolution}&start=${iso(now - span - 17 * SEC)}&end=${iso(now - 7 * MIN - 23 * SEC)}`
    out[`series ${q}`] = await get(`/v1/metrics/series/${a.deviceId}?${q}`)
  }
  for (const hours of [1, 2, 6, 24, 72]) out[`summary ${hours}`] = await get(`/v1/metrics/summary/${a.deviceId}?hours=${hours}`)
  out.history = await get(`/v1/metrics/hardware/${a.deviceId}?limit=3`)
  out.fleet = ((await get('/v1/clients/me/fleet')) as { devices: { cpu_spark: unknown }[] }).devices.map((d) => d.cpu_spark)
  out.forecast = await fieldSeriesOf(t.modules.metrics, a.clientId, a.deviceId, 'disk_used_percent', 72)
  const rules = await fieldSeriesReader(t.modules.metrics, a.clientId, a.deviceId, 72)
  out.rules = [rules('cpu_percent', 24), rules('download_mbps', 72)]
  // the two hubs' device ids differ; everything else must not
  return JSON.parse(JSON.stringify(out).replaceAll(a.deviceId, 'the device')) as Record<string, unknown>
}

describe('rollups at a collector cadence', () => {
  test('tiers rolled in whole spans answer every read as the job rolling each minute did: series, summaries, totals, sparklines, hourly series', async () => {
    const before = await hub(MINUTE_BY_MINUTE)
    const after = await hub(ROLL_STEPS)
    const both = [before, after]
    // two hours of history, rolled up by both, then a live device: 10 s apart, a gap of minutes 20 to 26 that arrives late
    const history = Array.from({ length: 2 * 360 }, (_, i) => item(i, T0 - 2 * HOUR + i * 10 * SEC))
    for (const h of both) {
      await h.post(history)
      h.t.clock.set(T0 + 35 * SEC)
      await h.roll()
    }
    const compared: string[] = []
    for (let m = 0; m < 95; m++) {
      const live = Array.from({ length: 6 }, (_, k) => item(720 + m * 6 + k, T0 + m * MIN + k * 10 * SEC)).filter(
        (_, k) => !(m >= 20 && m < 26) || (m === 25 && k === 5),
      )
      for (const h of both) {
        h.t.clock.set(T0 + m * MIN + 59 * SEC)
        await h.post(live)
        // the gap's samples arrive half an hour late, beside the live ones
        if (m === 55) await h.post(Array.from({ length: 35 }, (_, k) => item(720 + 120 + k, T0 + 20 * MIN + k * 10 * SEC)))
        h.t.clock.set(T0 + (m + 1) * MIN + 35 * SEC)
        await h.roll()
      }
      // compared right after a run, before the next minute's samples, across 10-minute and hour bounds
      if ([0, 3, 9, 10, 24, 30, 55, 56, 59, 60, 71, 94].includes(m)) {
        const [b, a] = [await reads(before), await reads(after)]
        for (const key of Object.keys(b)) expect({ key, answer: a[key] }).toEqual({ key, answer: b[key] })
        compared.push(String(m))
      }
      // and at other seconds of the minute: between a minute's end and the run (second 20), and in the grace (second 50)
      if (m === 40 || m === 64) {
        for (const second of [20, 50]) {
          for (const h of both) h.t.clock.set(T0 + (m + 2) * MIN + second * SEC)
          const [b, a] = [await reads(before), await reads(after)]
          for (const key of Object.keys(b)) expect({ key, answer: a[key] }).toEqual({ key, answer: b[key] })
        }
        for (const h of both) h.t.clock.set(T0 + (m + 1) * MIN + 35 * SEC)
      }
    }
    expect(compared.length).toBe(12)
    // the stored tiers did lag behind (else the comparison would prove nothing), and catch up at the hour
    const done = (h: Hub) => h.t.modules.metrics.store.doneUntil('hardware')
    expect(done(after)['1m']).toBeLessThan(done(before)['1m'])
    expect(done(after)['10m']).toBeLessThan(done(before)['10m'])
    for (const h of both) {
      h.t.clock.set(T0 + 2 * HOUR + 35 * SEC)
      await h.roll()
    }
    expect(done(after)).toEqual(done(before))
    // the 1-minute tier is coded per ten minutes: its rows as the hub reads them
    const rows = (h: Hub, table: string) =>
      table.endsWith('_1m')
        ? minuteRows(h.t.db.sqlite, table === 'metric_hw_1m' ? 'hardware' : 'network')
        : h.t.db.sqlite.query(`SELECT * FROM ${table} ORDER BY device_seq, bucket`).all()
    expect(rows(after, 'metric_hw_1m').length).toBeGreaterThan(0)
    for (const table of ['metric_hw_1m', 'metric_hw_10m', 'metric_hw_1h', 'metric_net_1m', 'metric_net_10m', 'metric_net_1h']) {
      expect(rows(after, table)).toEqual(rows(before, table))
    }
  }, 120_000)
})

describe('rollups in whole spans: late data and restarts', () => {
  test('a replay of samples two hours back reaches every tier at the next run', async () => {
    const h = await hub(ROLL_STEPS)
    h.t.clock.set(T0 + 3 * HOUR)
    await h.post(Array.from({ length: 3 * 360 }, (_, i) => item(i, T0 + i * 10 * SEC)))
    await h.roll()
    const n = (table: string, bucket: number) =>
      table === 'metric_hw_1m'
        ? ((minuteRows(h.t.db.sqlite).find((r) => r.bucket === bucket)?.n as number | undefined) ?? 0)
        : (h.t.db.sqlite.query<{ n: number }, [number]>(`SELECT n FROM ${table} WHERE bucket = ?`).get(bucket)?.n ?? 0)
    const at = T0 + HOUR + 20 * MIN
    expect([n('metric_hw_1m', at), n('metric_hw_10m', at), n('metric_hw_1h', T0 + HOUR)]).toEqual([6, 60, 360])
    // the collector replays its queue: samples between the ones stored, five seconds after each
    h.t.clock.advance(MIN)
    await h.post(Array.from({ length: 6 }, (_, k) => item(5000 + k, at + 5 * SEC + k * 10 * SEC)))
    await h.roll()
    expect([n('metric_hw_1m', at), n('metric_hw_10m', at), n('metric_hw_1h', T0 + HOUR)]).toEqual([12, 66, 366])
  })

  test('after a restart the rollup goes on from where it was, the last minute looked at again: no gap, no sample missed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-rollup-restart-'))
    try {
      const file = join(dir, 'vigil.db')
      const first = await hubOn(file)
      first.t.clock.set(T0 + 10 * MIN + 35 * SEC)
      await first.post(Array.from({ length: 60 }, (_, i) => item(i, T0 + i * 10 * SEC)))
      await first.roll()
      expect(first.t.modules.metrics.store.doneUntil('hardware')['1m']).toBe(T0 + 10 * MIN)
      // a sample of the span just rolled, 45 s old: not reported as late (the look-back is there for it);
      // then the hub stops before its next run, and starts again 25 minutes later
      first.t.clock.set(T0 + 10 * MIN + 40 * SEC)
      await first.post([item(60, T0 + 9 * MIN + 55 * SEC)])
      const posted = Array.from({ length: 25 * 6 }, (_, i) => item(100 + i, T0 + 10 * MIN + i * 10 * SEC))
      first.t.clock.set(T0 + 35 * MIN + 20 * SEC)
      await first.post(posted)
      first.t.db.close()
      const again = await hubOn(file)
      again.t.clock.set(T0 + 35 * MIN + 35 * SEC)
      await again.roll()
      const minutes = minuteRows(again.t.db.sqlite).map((r) => [(r.bucket! - T0) / MIN, r.n])
      expect(minutes).toEqual(Array.from({ length: 30 }, (_, m) => [m, m === 9 ? 7 : 6]))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

/** A hub on a database file, with one device (the same one when the file already has it). */
async function hubOn(file: string) {
  const db = openDatabase(file)
  const t = testApp({ db })
  const existing = db.sqlite.query<{ id: string }, []>('SELECT id FROM devices').get()
  if (!existing) {
    t.clock.set(T0)
    const a = await tenantWithDevices(t)
    writeFileSync(`${file}.key`, JSON.stringify(a.keyHeaders))
  }
  const headers = JSON.parse(readFileSync(`${file}.key`, 'utf8')) as Record<string, string>
  const post = async (items: ReturnType<typeof item>[]) => {
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers })).status).toBe(201)
  }
  return { t, post, roll: () => runRollup(t.modules.metricsJobs) }
}
