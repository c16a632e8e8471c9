import { memoryLogger } from '../../../src/lib/logger'
import type { AlertNotification } from '../../../src/modules/alerts/alerts.model'
import type { AlertsDeps } from '../../../src/modules/alerts/alerts.ports'
import type { AlertDevice } from '../../../src/modules/alerts/runtime/alerts.runtime-ports'
import { createAlertsStore } from '../../../src/modules/alerts/alerts.store'
import { createAlertRuntime } from '../../../src/modules/alerts/runtime/alerts.runtime'
import { compileSelector, type SelectorCompiler } from '../../../src/modules/alerts/runtime/alerts.selectors'
import { testApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createTenant } from '../../helpers/fixtures'

/**
 * A runtime of its own on a test app's database, whose device, metric and channel ports are
 * fakes the test fills; notices are collected in `sent` (each channel counts as queued).
 */
export async function runtimeHarness(opts: { selectors?: SelectorCompiler } = {}) {
  const t = testApp()
  const tenant = await createTenant(t, { maxDevices: 10 })
  const devices = new Map<string, AlertDevice>()
  const trends = new Map<string, { t: number; avg: number }[]>()
  const sent: { channels: string[]; n: AlertNotification }[] = []
  const events: { type: string; alert: any }[] = []
  t.ctx.events.subscribeAll((e) => {
    if (e.type.startsWith('alert.')) events.push({ type: e.type, alert: (e.data as { alert: unknown }).alert })
  })
  const store = createAlertsStore(t.db.sqlite)
  // settings made: no default rules in the way
  await store.makeDefaults(tenant.clientId, [], 60, 1)
  const logger = memoryLogger().logger
  const alertDevices = { find: (_c: string, id: string) => devices.get(id) ?? null, list: () => [...devices.values()] }
  const runtime = createAlertRuntime({
    store,
    clock: t.clock,
    logger,
    events: t.ctx.events,
    notify: (_c, channels, n) => {
      sent.push({ channels, n })
      return channels.length
    },
    siteUrl: 'https://vigil.example',
    devices: alertDevices,
    metrics: { diskTrend: async (_c, id) => trends.get(id) ?? [] },
    selectors: opts.selectors ?? compileSelector,
  })
  await runtime.boot()
  const deps: AlertsDeps = {
    store,
    clock: t.clock,
    logger,
    runtime,
    devices: alertDevices,
    users: { emailOf: () => null },
    channels: { unknown: () => [] },
  }
  const add = (name: string, tags: string[] = []) => {
    const id = insertDevice(t, tenant.clientId, { hostname: name })
    devices.set(id, { id, name, tags, lastSeenAt: t.clock.now() })
    return id
  }
  const timeline = async (alertId: string) => (await store.eventsOf(tenant.clientId, alertId)).map((e) => e.type)
  return { t, tenant, clientId: tenant.clientId, store, runtime, deps, add, trends, sent, events, timeline }
}
