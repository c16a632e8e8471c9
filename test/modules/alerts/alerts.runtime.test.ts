import { describe, expect, test } from 'bun:test'
import type { MetricKind } from '../../../src/modules/metrics/metrics.fields'
import type { AlertNotification, RuleIn } from '../../../src/modules/alerts/alerts.model'
import { acknowledge } from '../../../src/modules/alerts/alerts.instances.service'
import { createRule, deleteRule, listRules, observeSample, putOverride, updateSettings } from '../../../src/modules/alerts/alerts.rules.service'
import { createSilence, setDependency } from '../../../src/modules/alerts/alerts.silences.service'
import { testApp, type TestApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'
import { insertChannel } from './channel-rows'

const MIN = 60_000

/** An app whose alert runtime is driven by hand: samples into the observer, ticks of the job, the clock moved. */
async function harness(
  t: TestApp = testApp({
    notify: (c, ch, n) => {
      sent.push({ clientId: c, channels: ch, n })
      return ch.length
    },
  }),
  sent: { clientId: string; channels: string[]; n: AlertNotification }[] = [],
) {
  const events: { type: string; alert: any }[] = []
  t.ctx.events.subscribeAll((e) => events.push({ type: e.type, alert: (e.data as { alert: unknown }).alert }))
  const tenant = await createTenant(t, { maxDevices: 10 })
  const deps = t.modules.alerts
  // start from no rules: each test makes its own
  for (const r of await listRules(deps, tenant.clientId)) await deleteRule(deps, tenant.clientId, r.id)
  await updateSettings(deps, tenant.clientId, { group_window_seconds: 60 })
  const device = (name: string) => insertDevice(t, tenant.clientId, { hostname: name, lastSeenAt: null })
  const channel = insertChannel(t, tenant.clientId)
  return {
    t,
    sent,
    events,
    tenant,
    deps,
    device,
    channel,
    rule: (body: Partial<RuleIn>) => createRule(deps, tenant.clientId, { name: 'r', channel_ids: [channel], ...body } as RuleIn),
    sample: (deviceId: string, values: Record<string, unknown>, kind: MetricKind = 'hardware') =>
      observeSample(deps, { clientId: tenant.clientId, deviceId, kind, ts: t.clock.now(), values }),
    tick: () => t.modules.alertsTick(),
    advance: (ms: number) => t.clock.advance(ms),
    types: () => events.map((e) => e.type),
    titles: () => sent.map((s) => s.n.title),
  }
}

describe('durations and hysteresis through the runtime', () => {
  test('a pending alert fires when its duration elapses on a tick, with no new sample', async () => {
    const h = await harness()
    const d = h.device('db-1')
    await h.rule({ metric: 'ram_percent', operator: '>', threshold: 95, recovery_threshold: 90, for_seconds: 600, severity: 'critical' })
    await h.sample(d, { ram_percent: 97 })
    h.advance(5 * MIN)
    await h.sample(d, { ram_percent: 98 })
    await h.tick()
    expect(h.types()).toEqual([])
    h.advance(5 * MIN)
    await h.tick()
    expect(h.types()).toEqual(['alert.firing'])
    expect(h.events[0]!.alert).toMatchObject({ state: 'firing', value: 98, device: { name: 'db-1' } })
    expect(h.titles()).toEqual(['CRITICAL: Memory used above 95 % on db-1'])
  })

  test('a pending alert that clears before its duration leaves nothing behind', async () => {
    const h = await harness()
    const d = h.device('db-1')
    await h.rule({ metric: 'ram_percent', threshold: 95, for_seconds: 600 })
    await h.sample(d, { ram_percent: 97 })
    expect(h.t.db.sqlite.query('SELECT state FROM alerts').all()).toEqual([{ state: 'pending' }])
    h.advance(MIN)
    await h.sample(d, { ram_percent: 50 })
    expect(h.t.db.sqlite.query('SELECT count(*) AS n FROM alerts').get()).toEqual({ n: 0 })
    expect(h.types()).toEqual([])
  })

  test('a per-device override moves the threshold for that device only', async () => {
    const h = await harness()
    const [a, b] = [h.device('a'), h.device('b')]
    const r = await h.rule({ metric: 'cpu_temp_c', threshold: 80 })
    await putOverride(h.deps, h.tenant.clientId, r.id, b, { threshold: 95 })
    await h.sample(a, { cpu_temp_c: 90 })
    await h.sample(b, { cpu_temp_c: 90 })
    expect(h.events.map((e) => e.alert.device.id)).toEqual([a])
  })

  test('a partition that goes away resolves its alert after 3 samples without it', async () => {
    const h = await harness()
    const d = h.device('nas')
    await h.rule({ metric: 'disk_partitions:*', threshold: 90 })
    await h.sample(d, { disk_partitions: [{ mountpoint: '/mnt/usb', percent: 99 }] })
    for (let i = 0; i < 3; i++) await h.sample(d, { disk_partitions: [] })
    expect(h.types()).toEqual(['alert.firing', 'alert.resolved'])
  })
})

describe('offline, gateways and the hub uplink', () => {
  async function reporting(h: Awaited<ReturnType<typeof harness>>, ids: string[]) {
    for (let i = 0; i < 3; i++) {
      for (const id of ids) await h.sample(id, { cpu_percent: 1 })
      h.advance(10_000)
    }
  }

  test('no data for 5 reporting intervals fires; the next sample resolves', async () => {
    const h = await harness()
    const d = h.device('pi')
    await h.rule({ kind: 'offline', name: 'Offline', offline_intervals: 5, severity: 'critical' })
    await reporting(h, [d])
    h.advance(40_000) // 50 s after the last sample: 5 intervals of 10 s, not more
    await h.tick()
    expect(h.types()).toEqual([])
    h.advance(1_000)
    await h.tick()
    expect(h.types()).toEqual(['alert.firing'])
    expect(h.titles()).toEqual(['CRITICAL: offline on pi'])
    await h.sample(d, { cpu_percent: 1 })
    expect(h.types()).toEqual(['alert.firing', 'alert.resolved'])
  })

  test('devices behind a gateway that is down wait behind it: one notice names them', async () => {
    const h = await harness()
    const gw = h.device('gateway')
    const [x, y] = [h.device('cam-1'), h.device('cam-2')]
    await setDependency(h.deps, h.tenant.clientId, x, gw)
    await setDependency(h.deps, h.tenant.clientId, y, gw)
    await h.rule({ kind: 'offline', name: 'Offline', offline_intervals: 5 })
    await reporting(h, [gw, x, y])
    h.advance(2 * MIN)
    await h.tick()
    expect(h.types()).toEqual(['alert.firing', 'alert.firing', 'alert.firing'])
    expect(h.sent).toHaveLength(1)
    expect(h.sent[0]!.n.title).toBe('WARNING: offline on gateway')
    expect(h.sent[0]!.n.body).toContain('2 device(s) behind it are unreachable too: cam-1, cam-2')
    // the gateway comes back, cam-1 does not: cam-1's own notice goes out now
    await h.sample(gw, { cpu_percent: 1 })
    await h.sample(y, { cpu_percent: 1 })
    h.advance(MIN + 1)
    await h.sample(gw, { cpu_percent: 1 })
    await h.sample(y, { cpu_percent: 1 })
    await h.tick()
    expect(h.titles().slice(1)).toContain('WARNING: offline on cam-1')
  })

  test('when no device at all reports, the hub says so once instead of an alert per device', async () => {
    const h = await harness()
    const ids = [h.device('a'), h.device('b'), h.device('c')]
    await h.rule({ kind: 'offline', name: 'Offline', offline_intervals: 5 })
    await reporting(h, ids)
    h.advance(4 * MIN)
    await h.tick()
    h.advance(MIN)
    await h.tick()
    expect(h.types()).toEqual([])
    expect(h.titles()).toEqual(['CRITICAL: the hub receives no data from any device'])
    // data flows again from two of them: the third gets a full window before it counts as offline
    await h.sample(ids[0]!, { cpu_percent: 1 })
    await h.sample(ids[1]!, { cpu_percent: 1 })
    await h.tick()
    h.advance(40_000)
    await h.sample(ids[0]!, { cpu_percent: 1 })
    await h.sample(ids[1]!, { cpu_percent: 1 })
    await h.tick()
    expect(h.types()).toEqual([])
    h.advance(20_000)
    await h.sample(ids[0]!, { cpu_percent: 1 })
    await h.sample(ids[1]!, { cpu_percent: 1 })
    await h.tick()
    expect(h.events.map((e) => e.alert.device.name)).toEqual(['c'])
  })
})

describe('silences', () => {
  test('a one-off silence holds the notice; it goes out when the silence ends if still firing', async () => {
    const h = await harness()
    const d = h.device('web')
    await h.rule({ metric: 'cpu_percent', threshold: 90 })
    await createSilence(h.deps, h.tenant.clientId, h.tenant.userId, {
      scope: { type: 'device', value: d },
      ends_at: new Date(h.t.clock.now() + 30 * MIN).toISOString(),
    })
    await h.sample(d, { cpu_percent: 99 })
    expect(h.types()).toEqual(['alert.firing'])
    expect(h.events[0]!.alert.silenced).toBe(true)
    expect(h.sent).toHaveLength(0)
    h.advance(29 * MIN)
    await h.tick()
    expect(h.sent).toHaveLength(0)
    h.advance(MIN)
    await h.tick()
    expect(h.titles()).toEqual(['WARNING: CPU used above 90 % on web'])
  })

  test('a recurring window in a named time zone: nightly 02:00–03:00 Paris time', async () => {
    const h = await harness()
    const d = h.device('web')
    await h.rule({ metric: 'cpu_percent', threshold: 90, recovery_threshold: 90 })
    await createSilence(h.deps, h.tenant.clientId, h.tenant.userId, { cron: '0 2 * * *', duration_seconds: 3600, timezone: 'Europe/Paris' })
    const cases: [string, boolean][] = [
      ['2026-01-01T00:59:00Z', false], // 01:59 in Paris
      ['2026-01-01T01:00:00Z', true],
      ['2026-01-01T01:59:00Z', true],
      ['2026-01-01T02:00:00Z', false],
    ]
    for (const [at, silent] of cases) {
      h.sent.length = 0
      h.t.clock.set(Date.parse(at))
      await h.sample(d, { cpu_percent: 99 })
      expect({ at, silent: h.sent.length === 0 }).toEqual({ at, silent })
      await h.sample(d, { cpu_percent: 10 })
      h.advance(2 * MIN) // past the grouping window
      await h.tick()
    }
  })
})

describe('grouping, repeats, acknowledge, recovery', () => {
  test('several devices tripping the same rule within the window make one more notice listing them', async () => {
    const h = await harness()
    const ids = ['a', 'b', 'c'].map((n) => h.device(n))
    await h.rule({ metric: 'cpu_percent', threshold: 90 })
    for (const id of ids) {
      await h.sample(id, { cpu_percent: 99 })
      h.advance(5_000)
    }
    expect(h.sent.map((s) => s.n.devices.map((d) => d.name))).toEqual([['a']])
    h.advance(MIN)
    await h.tick()
    expect(h.sent.map((s) => s.n.devices.map((d) => d.name))).toEqual([['a'], ['b', 'c']])
    expect(h.sent[1]!.n.title).toBe('WARNING: r on 2 devices')
    expect(h.sent[1]!.n.alert_ids).toHaveLength(2)
  })

  test('repeats while firing until acknowledged; the acknowledgement is announced', async () => {
    const h = await harness()
    const d = h.device('web')
    await h.rule({ metric: 'cpu_percent', threshold: 90, repeat_seconds: 3600 })
    await h.sample(d, { cpu_percent: 99 })
    h.advance(59 * MIN)
    await h.tick()
    expect(h.sent).toHaveLength(1)
    h.advance(MIN)
    await h.tick()
    expect(h.titles()).toEqual(['WARNING: CPU used above 90 % on web', 'STILL WARNING: CPU used above 90 % on web'])
    const id = h.events[0]!.alert.id
    const acked = await acknowledge(h.deps, h.tenant.clientId, id, h.tenant.userId, 'on it')
    expect(acked.acknowledged).toMatchObject({ by: h.tenant.email, note: 'on it' })
    expect(h.types()).toEqual(['alert.firing', 'alert.acknowledged'])
    expect(h.sent.at(-1)!.n.event).toBe('acknowledged')
    h.advance(5 * 3600_000)
    await h.tick()
    expect(h.sent).toHaveLength(3)
    expect(acked.timeline.map((e) => e.type)).toEqual(['pending', 'firing', 'notified', 'notified', 'acknowledged', 'notified'])
  })

  test('a delayed recovery notice; a relapse within the delay reopens the alert without a new notice', async () => {
    const h = await harness()
    const d = h.device('web')
    await h.rule({ metric: 'cpu_percent', threshold: 90, recovery_delay_seconds: 300 })
    await h.sample(d, { cpu_percent: 99 })
    h.advance(MIN)
    await h.sample(d, { cpu_percent: 10 })
    h.advance(2 * MIN)
    await h.sample(d, { cpu_percent: 99 })
    await h.tick()
    expect(h.types()).toEqual(['alert.firing', 'alert.resolved', 'alert.firing'])
    expect(new Set(h.events.map((e) => e.alert.id)).size).toBe(1)
    expect(h.sent.map((s) => s.n.event)).toEqual(['firing'])
    await h.sample(d, { cpu_percent: 10 })
    h.advance(4 * MIN)
    await h.tick()
    expect(h.sent.map((s) => s.n.event)).toEqual(['firing'])
    h.advance(MIN)
    await h.tick()
    expect(h.sent.map((s) => s.n.event)).toEqual(['firing', 'resolved'])
  })

  test('a restart keeps a firing alert firing: the next healthy sample resolves it', async () => {
    const sent: { clientId: string; channels: string[]; n: AlertNotification }[] = []
    const h = await harness(undefined, sent)
    const d = h.device('web')
    await h.rule({ metric: 'cpu_percent', threshold: 90 })
    await h.sample(d, { cpu_percent: 99 })
    const again = testApp({
      db: h.t.db,
      clock: h.t.clock,
      notify: (c, ch, n) => {
        sent.push({ clientId: c, channels: ch, n })
        return ch.length
      },
    })
    const events: string[] = []
    again.ctx.events.subscribeAll((e) => events.push(e.type))
    await observeSample(again.modules.alerts, { clientId: h.tenant.clientId, deviceId: d, kind: 'hardware', ts: h.t.clock.now(), values: { cpu_percent: 99 } })
    expect(events).toEqual([])
    await observeSample(again.modules.alerts, { clientId: h.tenant.clientId, deviceId: d, kind: 'hardware', ts: h.t.clock.now(), values: { cpu_percent: 5 } })
    expect(events).toEqual(['alert.resolved'])
    expect(sent.map((s) => s.n.event)).toEqual(['firing', 'resolved'])
  })
})
