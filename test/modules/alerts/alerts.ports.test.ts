import { expect, test } from 'bun:test'
import { memoryLogger } from '../../../src/lib/logger'
import { createAlertsEngine, type AlertDevice } from '../../../src/modules/alerts/alerts.engine'
import type { AlertNotification } from '../../../src/modules/alerts/alerts.model'
import { createRule, type AlertsDeps } from '../../../src/modules/alerts/alerts.service'
import { createAlertsStore } from '../../../src/modules/alerts/alerts.store'
import { createTicker } from '../../../src/modules/alerts/alerts.tick'
import { testApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'

const H = 3_600_000

/** An engine on the app's database whose device and metric ports are fakes the test fills. */
async function withPorts() {
  const t = testApp()
  const tenant = await createTenant(t, { maxDevices: 10 })
  const devices = new Map<string, AlertDevice>()
  const trends = new Map<string, { t: number; avg: number }[]>()
  const sent: AlertNotification[] = []
  const events: any[] = []
  t.ctx.events.subscribeAll((e) => events.push(e.data))
  const store = createAlertsStore(t.db.sqlite)
  // settings made: no default rules in the way
  store.saveSettings({ client_id: tenant.clientId, routing: '{"warning":[],"critical":[]}', group_window_seconds: 60, defaults_created_at: 1 })
  const engine = createAlertsEngine({
    store,
    clock: t.clock,
    logger: memoryLogger().logger,
    events: t.ctx.events,
    notify: (_c, ch, n) => {
      sent.push(n)
      return ch.length
    },
    siteUrl: 'https://vigil.example',
    devices: { find: (_c, id) => devices.get(id) ?? null, list: () => [...devices.values()] },
    metrics: { diskTrend: (_c, id) => trends.get(id) ?? [] },
  })
  engine.boot()
  const deps: AlertsDeps = { store, clock: t.clock, engine, devices: engine.deps.devices, users: { emailOf: () => null }, channels: { unknown: () => [] } }
  const add = (name: string, tags: string[]) => {
    const id = insertDevice(t, tenant.clientId, { hostname: name })
    devices.set(id, { id, name, tags, lastSeenAt: t.clock.now() })
    return id
  }
  return { t, tenant, engine, deps, tick: createTicker(engine), add, trends, sent, events }
}

test('a rule scoped by tag watches the devices with that tag only', async () => {
  const p = await withPorts()
  const db = p.add('db-1', ['db', 'prod'])
  const web = p.add('web-1', ['web'])
  createRule(p.deps, p.tenant.clientId, { name: 'db load', metric: 'cpu_percent', threshold: 80, scope: { type: 'tag', value: 'db' }, channel_ids: ['chn_1'] })
  p.engine.observe(p.tenant.clientId, web, 'hardware', p.t.clock.now(), { cpu_percent: 99 })
  p.engine.observe(p.tenant.clientId, db, 'hardware', p.t.clock.now(), { cpu_percent: 99 })
  expect(p.events.map((e) => e.alert.device.name)).toEqual(['db-1'])
  expect(p.sent[0]!.url).toBe(`https://vigil.example/devices/${db}`)
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
  createRule(p.deps, p.tenant.clientId, { name: 'Disk full soon', kind: 'disk_forecast', forecast_hours: 48, channel_ids: ['chn_1'] })
  p.tick()
  expect(p.events.map((e) => [e.alert.device.name, e.alert.state, e.alert.value])).toEqual([['nas', 'firing', 27]])
  expect(p.events[0].alert.context).toMatchObject({ hours_left: 27, slope_percent_per_hour: 1, disk_used_percent: 73 })
  expect(p.sent.map((n) => n.title)).toEqual(['WARNING: disk predicted full within 48 h on nas'])
  // the trend flattens: read again after 10 minutes, and resolved
  p.trends.set(
    nas,
    Array.from({ length: 24 }, (_, i) => ({ t: now - (23 - i) * H, avg: 73 })),
  )
  p.t.clock.advance(5 * 60_000)
  p.tick()
  expect(p.events).toHaveLength(1)
  p.t.clock.advance(5 * 60_000)
  p.tick()
  expect(p.events.map((e) => e.alert.state)).toEqual(['firing', 'resolved'])
})
