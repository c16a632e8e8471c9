import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { openPostgres } from '../../../src/db/pg/connection'
import { migratePostgres } from '../../../src/db/pg/migrate'
import { manualClock } from '../../../src/lib/clock'
import { memoryLogger } from '../../../src/lib/logger'
import type { PeerLink } from '../../../src/lib/peer-link'
import type { AlertNotification } from '../../../src/modules/alerts/alerts.model'
import type { AlertDevice } from '../../../src/modules/alerts/runtime/alerts.runtime-ports'
import type { RuleRow } from '../../../src/modules/alerts/alerts.rows'
import { createAlertsStorePg } from '../../../src/modules/alerts/alerts.store.pg'
import { createAlertRuntime } from '../../../src/modules/alerts/runtime/alerts.runtime'
import { compileSelector } from '../../../src/modules/alerts/runtime/alerts.selectors'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'

/**
 * Two hubs' alert runtimes on one PostgreSQL database, each fed the same samples (as when both
 * evaluate a device): an alert fires, notifies, repeats and resolves once between them.
 */
const pg = postgresForTests()
const MIN = 60_000

/** the other hubs' side of the link, in memory: what one hub sends, every other hears */
function peerLinks(n: number): PeerLink[] {
  const listeners = Array.from({ length: n }, () => new Map<string, ((body: unknown, key: string) => void)[]>())
  return listeners.map((mine, i) => ({
    origin: `hub${i}`,
    send(topic, key, json) {
      listeners.forEach((other, j) => {
        if (j !== i) for (const fn of other.get(topic) ?? []) fn(JSON.parse(json), key)
      })
    },
    on(topic, fn) {
      mine.set(topic, [...(mine.get(topic) ?? []), fn])
      return () => {}
    },
    onMissed: () => () => {},
  }))
}

const rule = (over: Partial<RuleRow> & { id: string }): RuleRow => ({
  client_id: 'c1',
  name: 'CPU high',
  enabled: 1,
  kind: 'threshold',
  metric: 'cpu_percent',
  operator: '>',
  threshold: 90,
  recovery_threshold: null,
  for_seconds: 0,
  offline_intervals: null,
  forecast_hours: null,
  severity: 'critical',
  scope_type: 'all',
  scope_value: null,
  channel_ids: '["chn_1"]',
  repeat_seconds: null,
  notify_recovery: 1,
  recovery_delay_seconds: 0,
  builtin: null,
  created_at: 1,
  updated_at: 1,
  ...over,
})

describe('two hubs evaluating the same device on one PostgreSQL', () => {
  let fresh: FreshDatabase | undefined
  const opened: SQL[] = []
  beforeAll(async () => {
    if (!pg.url) return
    fresh = await pg.freshDatabase('vigil_alert_hubs')
  }, 60_000)
  afterAll(async () => {
    for (const s of opened) await s.close()
    await fresh?.drop()
  }, 60_000)

  /** a fresh client with device d1 and the given rules, and two hubs' runtimes (each its own pool) */
  async function hubs(clientId: string, rules: RuleRow[], trend: { t: number; avg: number }[] = [], asked: number[] = []) {
    const [a, b] = [openPostgres({ url: fresh!.url, pool: 2 }), openPostgres({ url: fresh!.url, pool: 2 })]
    opened.push(a, b)
    if (opened.length === 2) await migratePostgres(a, 1)
    await a`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${clientId}, ${clientId}, 1, 1)`
    await a`INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES (${`${clientId}-d1`}, ${clientId}, 'fp', 1, 1, '[]')`
    const deviceId = `${clientId}-d1`
    const clock = manualClock()
    const events: { hub: number; type: string }[] = []
    const sent: { hub: number; n: AlertNotification }[] = []
    const device: AlertDevice = { id: deviceId, name: 'web-1', tags: [], lastSeenAt: clock.now() }
    const links = peerLinks(2)
    const runtimes = [a, b].map((sql, hub) => {
      const store = createAlertsStorePg(sql)
      return {
        store,
        runtime: createAlertRuntime({
          store,
          clock,
          logger: memoryLogger().logger,
          events: { publish: (_c: string, type: string) => events.push({ hub, type }) as never },
          notify: (_c, channels, n) => {
            sent.push({ hub, n })
            return channels.length
          },
          devices: { find: () => device, list: () => [device] },
          metrics: {
            diskTrend: async () => {
              asked.push(hub)
              return trend
            },
          },
          selectors: compileSelector,
          siteUrl: null,
          peers: links[hub],
        }),
      }
    })
    const store = runtimes[0]!.store
    await store.makeDefaults(clientId, [], 0, 1)
    await store.addRules(clientId, rules, 100)
    for (const h of runtimes) await h.runtime.boot()
    const both = <T>(fn: (r: (typeof runtimes)[number]['runtime']) => Promise<T>) => Promise.all(runtimes.map((h) => fn(h.runtime)))
    const sample = (cpu: number) => both(async (r) => r.observe({ clientId, deviceId, source: 'hardware', ts: clock.now(), values: { cpu_percent: cpu } }))
    const types = () => events.map((e) => e.type)
    const titles = () => sent.map((s) => s.n.event)
    return { clock, store, runtimes, both, sample, events, sent, types, titles, clientId, deviceId }
  }

  test.skipIf(!pg.url)(`a disk forecast both hubs make fires and notifies once, and resolves once ${pg.skipReason}`, async () => {
    // the trend each hub reads from the shared rollups: 5 points an hour, full in 5 hours
    const trend: { t: number; avg: number }[] = []
    const asked: number[] = []
    const h = await hubs(
      'cf',
      [rule({ id: 'rf', client_id: 'cf', kind: 'disk_forecast', metric: null, operator: null, threshold: null, forecast_hours: 48 })],
      trend,
      asked,
    )
    for (let i = 0; i < 6; i++) trend.push({ t: h.clock.now() - (5 - i) * 3_600_000, avg: 50 + 5 * i })
    await h.both((r) => r.tick())
    expect(asked.sort()).toEqual([0, 1])
    expect(h.types()).toEqual(['alert.firing'])
    expect(h.titles()).toEqual(['firing'])
    // the disk stops growing: the next forecasts (10 minutes on) resolve it once
    trend.splice(0, trend.length, ...trend.map((p) => ({ ...p, avg: 60 })))
    h.clock.advance(10 * MIN)
    await h.both((r) => r.tick())
    expect(asked).toHaveLength(4)
    expect(h.types()).toEqual(['alert.firing', 'alert.resolved'])
    expect(h.titles()).toEqual(['firing', 'resolved'])
  })

  test.skipIf(!pg.url)(`one firing, one notice, one resolution and one recovery notice ${pg.skipReason}`, async () => {
    const h = await hubs('c1', [rule({ id: 'r1', client_id: 'c1' })])
    await h.sample(50)
    await h.sample(99)
    expect(h.types()).toEqual(['alert.firing'])
    expect(h.titles()).toEqual(['firing'])
    // both hubs follow the one alert: a second high sample changes nothing
    h.clock.advance(10_000)
    await h.sample(98)
    await h.both((r) => r.tick())
    expect(h.types()).toEqual(['alert.firing'])
    h.clock.advance(10_000)
    await h.sample(10)
    expect(h.types()).toEqual(['alert.firing', 'alert.resolved'])
    expect(h.titles()).toEqual(['firing', 'resolved'])
    const rows = await h.store.alertsPage('c1', { state: null, deviceId: null, ruleId: null, since: null, until: null }, 10, 0)
    expect(rows.map((r) => r.state)).toEqual(['resolved'])
    expect((await h.store.eventsOf('c1', rows[0]!.id)).map((e) => e.type)).toEqual(['pending', 'firing', 'notified', 'resolved', 'notified'])
  })

  test.skipIf(!pg.url)(`a pending alert fires once when both hubs tick past its duration; repeats go once until acknowledged ${pg.skipReason}`, async () => {
    const h = await hubs('c2', [rule({ id: 'r2', client_id: 'c2', for_seconds: 300, repeat_seconds: 3600 })])
    await h.sample(99)
    expect(h.types()).toEqual([])
    h.clock.advance(5 * MIN)
    await h.both((r) => r.tick())
    expect(h.types()).toEqual(['alert.firing'])
    expect(h.titles()).toEqual(['firing'])
    h.clock.advance(60 * MIN)
    await h.both((r) => r.tick())
    await h.both((r) => r.tick())
    // a repeat goes out as a firing notice
    expect(h.titles()).toEqual(['firing', 'firing'])
    // acknowledged on one hub: the other repeats no more
    const [open] = await h.store.alertsPage('c2', { state: 'firing', deviceId: null, ruleId: null, since: null, until: null }, 1, 0)
    expect(await h.runtimes[0]!.runtime.acknowledge('c2', open!.id, 'ops@example.com', '')).toBe(true)
    expect(h.types()).toEqual(['alert.firing', 'alert.acknowledged'])
    h.clock.advance(120 * MIN)
    await h.both((r) => r.tick())
    expect(h.titles()).toEqual(['firing', 'firing', 'acknowledged'])
  })

  test.skipIf(!pg.url)(`a rule made on one hub is compiled on the other; an alert one hub started is followed by the other ${pg.skipReason}`, async () => {
    const h = await hubs('c3', [])
    await h.store.addRules('c3', [rule({ id: 'r3', client_id: 'c3', recovery_threshold: 80 })], 100)
    await h.runtimes[0]!.runtime.reload('c3')
    // only hub 1 hears the high sample; only hub 0 hears the low one
    await h.runtimes[1]!.runtime.observe({ clientId: 'c3', deviceId: h.deviceId, source: 'hardware', ts: h.clock.now(), values: { cpu_percent: 99 } })
    expect(h.events).toEqual([{ hub: 1, type: 'alert.firing' }])
    await h.runtimes[0]!.runtime.tick()
    h.clock.advance(10_000)
    await h.runtimes[0]!.runtime.observe({ clientId: 'c3', deviceId: h.deviceId, source: 'hardware', ts: h.clock.now(), values: { cpu_percent: 50 } })
    expect(h.events).toEqual([
      { hub: 1, type: 'alert.firing' },
      { hub: 0, type: 'alert.resolved' },
    ])
    // hub 1 learns on its tick that the alert is resolved, and starts a new one on the next high sample
    await h.runtimes[1]!.runtime.tick()
    h.clock.advance(10_000)
    await h.sample(99)
    expect(h.types()).toEqual(['alert.firing', 'alert.resolved', 'alert.firing'])
    expect(h.titles()).toEqual(['firing', 'resolved', 'firing'])
  })

  test.skipIf(!pg.url)(`a rule retired on one hub closes the alert the other hub opened moments before ${pg.skipReason}`, async () => {
    const h = await hubs('c4', [rule({ id: 'r4', client_id: 'c4' })])
    await h.runtimes[1]!.runtime.observe({ clientId: 'c4', deviceId: h.deviceId, source: 'hardware', ts: h.clock.now(), values: { cpu_percent: 99 } })
    await h.runtimes[0]!.runtime.retire('c4', 'r4', 'the rule was disabled')
    expect(h.events).toEqual([
      { hub: 1, type: 'alert.firing' },
      { hub: 0, type: 'alert.resolved' },
    ])
    expect(await h.store.firingCounts('c4')).toEqual([])
  })
})
