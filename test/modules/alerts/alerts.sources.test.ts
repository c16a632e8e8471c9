import { describe, expect, test } from 'bun:test'
import { newId } from '../../../src/lib/ids'
import { createSilence } from '../../../src/modules/alerts/alerts.silences.service'
import type { RuleRow } from '../../../src/modules/alerts/alerts.store'
import { compileSelector, type SelectorCompiler } from '../../../src/modules/alerts/runtime/alerts.selectors'
import { runtimeHarness } from './runtime-harness'

const MIN = 60_000

/**
 * A source that is not a metric sample: a service check whose result is up or down. Its
 * selector reads `check:<name>` from the check's observation as 1 (up) or 0 (down); every
 * other metric is read as before.
 */
const withChecks: SelectorCompiler = (metric) => {
  if (!metric.startsWith('check:')) return compileSelector(metric)
  const name = metric.slice('check:'.length)
  const read = (values: Record<string, unknown>) => (values[name] === 'up' ? 1 : values[name] === 'down' ? 0 : null)
  return { metric, source: 'check', wildcard: false, read, each: () => [] }
}

async function checks() {
  const h = await runtimeHarness({ selectors: withChecks })
  const rule = async (over: Partial<RuleRow> = {}) => {
    const now = h.t.clock.now()
    const row: RuleRow = {
      id: newId('rul'),
      client_id: h.clientId,
      name: 'Website down',
      enabled: 1,
      kind: 'threshold',
      metric: 'check:http',
      operator: '<',
      threshold: 1,
      recovery_threshold: null,
      for_seconds: 0,
      offline_intervals: null,
      forecast_hours: null,
      severity: 'critical',
      scope_type: 'all',
      scope_value: null,
      channel_ids: '["chn_pager"]',
      repeat_seconds: null,
      notify_recovery: 1,
      recovery_delay_seconds: 0,
      builtin: null,
      created_at: now,
      updated_at: now,
      ...over,
    }
    await h.store.addRules(h.clientId, [row], 200)
    await h.runtime.reload(h.clientId)
    return row
  }
  const check = (deviceId: string, http: 'up' | 'down') =>
    h.runtime.observe({ clientId: h.clientId, deviceId, source: 'check', ts: h.t.clock.now(), values: { http } })
  return { ...h, rule, check }
}

describe('an observation from a source other than metrics goes the same path', () => {
  test('a check going down raises an alert and a notice; back up, it resolves with a recovery notice', async () => {
    const h = await checks()
    await h.rule()
    const web = h.add('web-1')
    await h.check(web, 'up')
    expect(h.events).toEqual([])
    h.t.clock.advance(10_000)
    await h.check(web, 'down')
    expect(h.events.map((e) => [e.type, e.alert.state, e.alert.value])).toEqual([['alert.firing', 'firing', 0]])
    expect(h.events[0]!.alert.context.sample).toMatchObject({ kind: 'check', values: { http: 'down' } })
    expect(h.sent.map((s) => [s.n.event, s.channels])).toEqual([['firing', ['chn_pager']]])
    h.t.clock.advance(10_000)
    await h.check(web, 'up')
    expect(h.events.map((e) => e.type)).toEqual(['alert.firing', 'alert.resolved'])
    expect(h.sent.map((s) => s.n.event)).toEqual(['firing', 'resolved'])
    expect(await h.timeline(h.events[0]!.alert.id)).toEqual(['pending', 'firing', 'notified', 'resolved', 'notified'])
  })

  test('a metric sample does not trip a check rule, nor a check a metric rule', async () => {
    const h = await checks()
    await h.rule()
    await h.rule({ metric: 'cpu_percent', operator: '>', threshold: 90 })
    const web = h.add('web-1')
    await h.runtime.observe({ clientId: h.clientId, deviceId: web, source: 'hardware', ts: h.t.clock.now(), values: { cpu_percent: 10, http: 'down' } })
    await h.runtime.observe({ clientId: h.clientId, deviceId: web, source: 'check', ts: h.t.clock.now(), values: { http: 'up', cpu_percent: 99 } })
    expect(h.events).toEqual([])
  })

  test('checks failing on several devices within the grouping window make one notice when it closes', async () => {
    const h = await checks()
    await h.rule()
    const [a, b, c] = [h.add('a'), h.add('b'), h.add('c')]
    await h.check(a, 'down')
    h.t.clock.advance(5_000)
    await h.check(b, 'down')
    await h.check(c, 'down')
    // the first goes at once; the others are held in the window
    expect(h.sent.map((s) => s.n.devices.map((d) => d.name))).toEqual([['a']])
    h.t.clock.advance(MIN)
    await h.runtime.tick()
    expect(h.sent.map((s) => s.n.devices.map((d) => d.name))).toEqual([['a'], ['b', 'c']])
    expect(h.sent[1]!.n.title).toBe('CRITICAL: Website down on 2 devices')
  })

  test('a silence holds a failing check’s notice; the alert is still raised and says it is silenced', async () => {
    const h = await checks()
    await h.rule()
    const web = h.add('web-1')
    await createSilence(h.deps, h.clientId, 'usr_x', {
      comment: 'deploy',
      scope: { type: 'device', value: web },
      ends_at: new Date(h.t.clock.now() + 30 * MIN).toISOString(),
    })
    await h.check(web, 'down')
    expect(h.events.map((e) => [e.type, e.alert.silenced])).toEqual([['alert.firing', true]])
    expect(h.sent).toEqual([])
    expect(await h.timeline(h.events[0]!.alert.id)).toEqual(['pending', 'firing', 'silenced'])
    // the silence ends while the check still fails: the held notice goes out on the next tick
    h.t.clock.advance(31 * MIN)
    await h.runtime.tick()
    expect(h.sent.map((s) => s.n.event)).toEqual(['firing'])
  })

  test('a check that must fail for a while is pending first and fires on the tick once the duration passed', async () => {
    const h = await checks()
    await h.rule({ for_seconds: 120 })
    const web = h.add('web-1')
    await h.check(web, 'down')
    expect(h.events).toEqual([])
    h.t.clock.advance(MIN)
    await h.check(web, 'down')
    await h.runtime.tick()
    expect(h.events).toEqual([])
    h.t.clock.advance(MIN)
    await h.runtime.tick()
    expect(h.events.map((e) => e.type)).toEqual(['alert.firing'])
  })
})
