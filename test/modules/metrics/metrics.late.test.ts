import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { openDatabase } from '../../../src/db/connection'
import { migrate } from '../../../src/db/migrate'
import { runRollup, type MetricsJobDeps } from '../../../src/modules/metrics/metrics.jobs'
import { createLateStore, type LateSpan } from '../../../src/modules/metrics/metrics.late.store'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { tempDirs } from '../../helpers/temp-dirs'

const T0 = Date.UTC(2026, 0, 1)
const HOUR = 3_600_000
const tempDir = tempDirs('vigil-late-')

const item = (ts: number, i: number) => ({ recorded_at: new Date(ts).toISOString(), hardware: hardwareSample(i), network: networkSample(i) })

/** A hub on a database file, its clock five hours past T0, with the first hour at 10 s posted and rolled up. */
async function hubWithAnHour(file: string) {
  const t = testApp({ db: openDatabase(file) })
  t.clock.set(T0 + 5 * HOUR)
  const a = await tenantWithDevices(t)
  const items = Array.from({ length: 360 }, (_, i) => item(T0 + i * 10_000, i))
  for (let i = 0; i < items.length; i += 120) {
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 120) }, headers: a.keyHeaders })).status).toBe(201)
  }
  await runRollup(t.modules.metricsJobs)
  return { t, a }
}

const hourCount = (t: { db: ReturnType<typeof openDatabase> }) =>
  t.db.sqlite.query<{ n: number }, [number]>('SELECT n FROM metric_hw_1h WHERE bucket = ?').get(T0)?.n

async function reads(t: ReturnType<typeof testApp>, a: { userId: string; clientId: string; deviceId: string }) {
  const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
  const range = (h: number) => `start_date=${new Date(T0).toISOString()}&end_date=${new Date(T0 + h * HOUR).toISOString()}`
  const total = async (h: number) => (await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?limit=1&${range(h)}`, { headers })).body.total
  const summary = (await t.request('GET', `/v1/metrics/summary/${a.deviceId}?hours=24`, { headers })).body
  // an hour's range is counted from the samples; six hours' takes whole hours from the hourly tier
  return { hour: await total(1), sixHours: await total(6), summarised: summary.hardware.samples }
}

describe('late samples (a replay, a backfill) reach the rollup tiers', () => {
  test('also when the hub stops before the rollup job runs again: their span is stored with them', async () => {
    const file = join(tempDir(), 'vigil.db')
    const { t, a } = await hubWithAnHour(file)
    expect(hourCount(t)).toBe(360)
    // a sample between two others, four hours late
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: [item(T0 + 5_000, 1)] }, headers: a.keyHeaders })).status).toBe(201)
    t.db.sqlite.close()

    const after = testApp({ db: openDatabase(file) })
    after.clock.set(T0 + 5 * HOUR + 60_000)
    await runRollup(after.modules.metricsJobs)
    expect(hourCount(after)).toBe(361)
    expect(await reads(after, a)).toEqual({ hour: 361, sixHours: 361, summarised: 361 })
    expect(after.db.sqlite.query('SELECT * FROM metric_late').all()).toEqual([])
  })

  test("a page's total counts them before the rollup job has run", async () => {
    const { t, a } = await hubWithAnHour(join(tempDir(), 'vigil.db'))
    const late = Array.from({ length: 6 }, (_, i) => item(T0 + 5_000 + i * 600_000, i))
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: late }, headers: a.keyHeaders })).status).toBe(201)
    expect(hourCount(t)).toBe(360)
    const before = await reads(t, a)
    expect([before.hour, before.sixHours]).toEqual([366, 366])
    await runRollup(t.modules.metricsJobs)
    expect(hourCount(t)).toBe(366)
    expect(await reads(t, a)).toEqual({ hour: 366, sixHours: 366, summarised: 366 })
  })
})

describe('the span kept in metric_late', () => {
  const store = () => {
    const db = openDatabase(':memory:')
    migrate(db.sqlite, T0)
    return createLateStore(db.sqlite)
  }

  test('widened by each group; a claimed span is rolled apart from what the writers add meanwhile, and kept until finished', () => {
    const late = store()
    late.note({ hardware: { from: 50, to: 80 }, network: null })
    late.note({ hardware: { from: 20, to: 60 }, network: { from: 7, to: 7 } })
    expect(late.pending('hardware')).toEqual({ from: 20, to: 80 })
    expect(late.claim('hardware')).toEqual({ from: 20, to: 80 })
    late.note({ hardware: { from: 30, to: 30 }, network: null }) // while the run rolls
    expect(late.pending('hardware')).toEqual({ from: 20, to: 80 })
    late.finish('hardware')
    expect(late.pending('hardware')).toEqual({ from: 30, to: 30 })
    expect(late.claim('hardware')).toEqual({ from: 30, to: 30 })
    // not finished (the run stopped): the next claim takes it with what came since
    late.note({ hardware: { from: 90, to: 95 }, network: null })
    expect(late.claim('hardware')).toEqual({ from: 30, to: 95 })
    late.finish('hardware')
    expect([late.pending('hardware'), late.claim('hardware')]).toEqual([null, null])
    expect(late.pending('network')).toEqual({ from: 7, to: 7 })
  })

  test('a rollup run that fails does not finish its span', async () => {
    const span: LateSpan = { from: T0, to: T0 + 1 }
    const finished: string[] = []
    const deps = {
      rollups: {
        doneUntil: () => T0,
        oldest: () => T0,
        roll: () => {
          throw new Error('disk I/O error')
        },
        setDone: () => {},
      },
      devices: { seqs: () => [1] },
      writer: { claimLateSpan: () => span, finishLateSpan: (kind: string) => void finished.push(kind) },
      clock: { now: () => T0 + HOUR },
      retention: { raw: 7 * 86_400, m1: 86_400, m10: 86_400, h1: 86_400, d1: 86_400 },
    } as unknown as MetricsJobDeps
    await expect(runRollup(deps)).rejects.toThrow('disk I/O error')
    expect(finished).toEqual([])
    deps.rollups.roll = async () => {}
    await runRollup(deps)
    expect(finished).toEqual(['hardware', 'network'])
  })
})
