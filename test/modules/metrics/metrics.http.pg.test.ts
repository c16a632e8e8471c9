import { describe, expect, test } from 'bun:test'
import { runRetention, runRollup } from '../../../src/modules/metrics/metrics.jobs'
import { testApp, type TestApp } from '../../helpers/app'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { tenantWithDevices } from '../../helpers/metrics'
import real from '../../fixtures/agent-sample.json'

/**
 * The metric routes on PostgreSQL answer as on SQLite: the same real sample (`vigil agent
 * --once`) posted to an app on each engine, through every ingest route, then every read route's
 * body compared byte for byte; and retention dropping a day's partition.
 */
const pgApp = pgTestAppLifecycle()
const T0 = Date.UTC(2026, 10, 20, 12)
const HOUR = 3_600_000
const DAY = 24 * HOUR
const config = { metricsRetention: { raw: 2 * 86_400, m1: 7 * 86_400, m10: 30 * 86_400, h1: 90 * 86_400, d1: 365 * 86_400 } }

const at = (ms: number) => new Date(ms).toISOString()
const hw = (i: number) => ({ ...real.hardware, cpu_percent: 5 + i })
const net = (i: number) => ({ ...real.network, bytes_sent_total: (real.network.bytes_sent_total as number) + i * 4096 })

/** Every ingest route, then every read route's answer as text. */
async function scenario(t: TestApp & { sql?: import('bun').SQL }) {
  t.clock.set(T0)
  const a = await tenantWithDevices(t)
  const post = (path: string, body: unknown) => t.request('POST', `/v1/metrics/${path}`, { body, headers: a.keyHeaders })
  const created: unknown[] = []
  const keep = (r: { status: number; body: unknown }) => {
    expect(r.status).toBe(201)
    created.push(r.body)
  }
  // a batch of the real sample, and its repeat
  keep(await post('batch', { ...real, recorded_at: at(T0 - 50 * 60_000) }))
  keep(await post('batch', { ...real, recorded_at: at(T0 - 50 * 60_000) }))
  // single parts, at times of their own
  keep(await post('hardware', { ...hw(1), recorded_at: at(T0 - 40 * 60_000) }))
  keep(await post('network', { ...net(1), recorded_at: at(T0 - 40 * 60_000) }))
  // a replay of 30 minutes, one item repeated and one refused
  const items = Array.from({ length: 30 }, (_, i) => ({ hardware: hw(i), network: net(i), recorded_at: at(T0 - 35 * 60_000 + i * 60_000) }))
  keep(await post('bulk', { items: [...items, items[3], { recorded_at: at(T0 + DAY) }] }))
  // a sample stamped by the hub
  const stamped = await post('batch', { hardware: hw(99), network: net(99) })
  expect(stamped.status).toBe(201)
  t.clock.set(T0 + 5 * 60_000)
  await runRollup(t.modules.metricsJobs)
  const read = async (path: string) => {
    const r = await t.request('GET', `/v1/metrics/${path}`, { headers: a.userHeaders })
    return `${r.status} ${r.text.replaceAll(a.deviceId, 'D')}`
  }
  const d = a.deviceId
  const reads: Record<string, string> = {}
  for (const path of [
    `hardware/${d}?limit=10`,
    `network/${d}?limit=10&offset=5`,
    `hardware/${d}?limit=1000&start_date=${at(T0 - 45 * 60_000)}&end_date=${at(T0 - 20 * 60_000)}`,
    `network/${d}?limit=3&offset=200`,
    `hardware/${d}/latest`,
    `network/${d}/latest`,
    `summary/${d}?hours=1`,
    `summary/${d}?hours=24`,
    `hardware/not-a-device/latest`,
    `series/${d}?kind=hardware&fields=cpu_percent,ram_percent,cpu_per_core,disk_partitions&resolution=raw&start=${at(T0 - HOUR)}&end=${at(T0 + 1)}`,
    `series/${d}?kind=network&fields=bytes_sent_total,interfaces&resolution=1m&start=${at(T0 - HOUR)}&end=${at(T0)}`,
    `series/${d}?kind=hardware&fields=cpu_percent,cpu_per_core&start=${at(T0 - 6 * HOUR)}&end=${at(T0)}`,
    `series/${d}?kind=hardware&fields=nope`,
  ]) {
    reads[path.replace(d, 'D')] = await read(path)
  }
  return { created: JSON.stringify(created).replaceAll(d, 'D'), reads, stamped: stamped.body, a }
}

describe('metric routes on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(
    `every read answers the same bytes on both engines after the same ingest ${pgApp.skipReason}`,
    async () => {
      const lite = await scenario(testApp({ config }))
      const pg = await scenario(await pgApp.make({ config }))
      expect(pg.created).toBe(lite.created)
      for (const [path, text] of Object.entries(lite.reads)) expect(`${path} → ${pg.reads[path]}`).toBe(`${path} → ${text}`)
      expect(lite.reads['hardware/D?limit=10']).toContain('"cpu_brand":"AMD EPYC"')
      // the charts carry points, nested families included
      const chart = Object.entries(lite.reads).find(([p]) => p.startsWith('series/D?kind=hardware&fields=cpu_percent,ram_percent'))![1]
      expect(JSON.parse(chart.slice(4)).values['cpu_per_core:0'].length).toBeGreaterThan(30)
      expect(JSON.parse(lite.reads['summary/D?hours=1']!.slice(4)).hardware.samples).toBe(33)
    },
    60_000,
  )

  test.skipIf(pgApp.skip)(
    `retention drops the days past raw retention as whole partitions; newer samples stay ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make({ config })
      t.clock.set(T0)
      const a = await tenantWithDevices(t)
      for (const back of [0, 1]) {
        const r = await t.request('POST', '/v1/metrics/batch', { body: { ...real, recorded_at: at(T0 - back * DAY) }, headers: a.keyHeaders })
        expect(r.status).toBe(201)
      }
      // the day partitions, as YYYYMMDD
      const days = async () =>
        (
          (await t.sql`SELECT c.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent JOIN pg_class c ON c.oid = i.inhrelid
            WHERE p.relname = 'metric_records' ORDER BY c.relname`) as { relname: string }[]
        ).map((r) => r.relname.slice('metric_records_'.length))
      const dayOf = (ms: number) => at(ms).slice(0, 10).replaceAll('-', '')
      expect(await days()).toContain(dayOf(T0 - DAY))
      // three days on: yesterday's sample is past the two days of raw retention, today's is not
      t.clock.set(T0 + 2 * DAY + HOUR)
      await runRetention(t.modules.metricsJobs)
      // a token of now (the tenant's expired meanwhile)
      const token = await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })
      const page = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?limit=10`, { headers: { authorization: `Bearer ${token}` } })
      expect(page.body.items.map((i: { recorded_at: string }) => i.recorded_at)).toEqual([at(T0)])
      expect(page.body.total).toBe(1)
      // the old days went as partitions (and the days ahead were made)
      const [{ n: old }] = await t.sql`SELECT count(*)::int AS n FROM pg_class WHERE relname = ${`metric_records_${at(T0 - DAY)
        .slice(0, 10)
        .replaceAll('-', '')}`}`
      expect(old).toBe(0)
      // the days kept: none before the cutoff's day (T0's), and three days ahead of now made
      const kept = await days()
      expect(kept[0]! >= dayOf(T0)).toBe(true)
      expect(kept).toContain(dayOf(T0))
      expect(kept).toContain(dayOf(T0 + 5 * DAY))
      // a sample older than what the hub keeps is refused, nothing stored
      const late = await t.request('POST', '/v1/metrics/batch', { body: { ...real, recorded_at: at(T0 - DAY) }, headers: a.keyHeaders })
      expect(late.status).toBe(400)
    },
    60_000,
  )
})
