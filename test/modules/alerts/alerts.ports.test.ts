import { expect, test } from 'bun:test'
import { createRule } from '../../../src/modules/alerts/alerts.rules.service'
import { runtimeHarness } from './runtime-harness'

const H = 3_600_000

/** A runtime whose device and metric ports are fakes the test fills. */
async function withPorts() {
  const h = await runtimeHarness()
  return { ...h, tick: h.runtime.tick }
}

test('a rule scoped by tag watches the devices with that tag only', async () => {
  const p = await withPorts()
  const db = p.add('db-1', ['db', 'prod'])
  const web = p.add('web-1', ['web'])
  await createRule(p.deps, p.tenant.clientId, {
    name: 'db load',
    metric: 'cpu_percent',
    threshold: 80,
    scope: { type: 'tag', value: 'db' },
    channel_ids: ['chn_1'],
  })
  await p.runtime.observe({ clientId: p.clientId, deviceId: web, source: 'hardware', ts: p.t.clock.now(), values: { cpu_percent: 99 } })
  await p.runtime.observe({ clientId: p.clientId, deviceId: db, source: 'hardware', ts: p.t.clock.now(), values: { cpu_percent: 99 } })
  expect(p.events.map((e) => e.alert.device.name)).toEqual(['db-1'])
  expect(p.sent[0]!.n.url).toBe(`https://vigil.example/devices/${db}`)
})

test('a disk predicted full within the window fires from the hourly trend, with its figures in the context', async () => {
  const p = await withPorts()
  const nas = p.add('nas', [])
  const calm = p.add('calm', [])
  const now = p.t.clock.now()
  p.trends.set(
    nas,
    Array.from({ length: 24 }, (_, i) => ({ t: now - (23 - i) * H, avg: 50 + i })),
  )
  p.trends.set(
    calm,
    Array.from({ length: 24 }, (_, i) => ({ t: now - (23 - i) * H, avg: 50 })),
  )
  await createRule(p.deps, p.tenant.clientId, { name: 'Disk full soon', kind: 'disk_forecast', forecast_hours: 48, channel_ids: ['chn_1'] })
  await p.tick()
  expect(p.events.map((e) => [e.alert.device.name, e.alert.state, e.alert.value])).toEqual([['nas', 'firing', 27]])
  expect(p.events[0]!.alert.context).toMatchObject({ hours_left: 27, slope_percent_per_hour: 1, disk_used_percent: 73 })
  expect(p.sent.map((s) => s.n.title)).toEqual(['WARNING: disk predicted full within 48 h on nas'])
  // the trend flattens: read again after 10 minutes, and resolved
  p.trends.set(
    nas,
    Array.from({ length: 24 }, (_, i) => ({ t: now - (23 - i) * H, avg: 73 })),
  )
  p.t.clock.advance(5 * 60_000)
  await p.tick()
  expect(p.events).toHaveLength(1)
  p.t.clock.advance(5 * 60_000)
  await p.tick()
  expect(p.events.map((e) => e.alert.state)).toEqual(['firing', 'resolved'])
})
