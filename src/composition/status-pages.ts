import type { AppContext } from '../context'
import { listDevicesNow } from '../modules/devices/devices.service'
import { createRenderCache } from '../modules/status-pages/status-pages.cache'
import type { StatusChecksPort, StatusDevicesPort } from '../modules/status-pages/status-pages.ports'
import { forgetItem, pagesShowing, type StatusPagesDeps } from '../modules/status-pages/status-pages.service'
import { createStatusPagesStore } from '../modules/status-pages/status-pages.store'
import { publicView } from '../modules/status-pages/status-pages.view'
import type { CheckModules } from './checks'
import type { FleetModules } from './fleet'
import type { Hooks } from './hooks'

/** Public status pages: the team's API and the public routes share one store and one render cache. */
export function wireStatusPages(ctx: AppContext, fleet: FleetModules, ports: { checks: StatusChecksPort }) {
  const store = createStatusPagesStore(ctx.db.sqlite)
  const devices: StatusDevicesPort = {
    views(clientId, ids) {
      const wanted = new Set(ids)
      return listDevicesNow(fleet.devices, clientId)
        .filter((d) => wanted.has(d.device_id))
        .map((d) => ({ id: d.device_id, name: d.name ?? d.hostname ?? 'Server', state: d.status }))
    },
  }
  const checks = ports.checks
  const cache = createRenderCache(ctx.clock, (page) => publicView({ store, clock: ctx.clock, checks, devices }, page))
  const siteHost = new URL(ctx.config.siteUrl).hostname.toLowerCase()
  const statusPages: StatusPagesDeps = { store, clock: ctx.clock, devices, changed: cache.invalidate, reservedHosts: [siteHost] }
  return { statusPages, statusPublic: { store, cache } }
}

export type StatusPagesModules = ReturnType<typeof wireStatusPages>

/**
 * The pages follow what they list: a deleted check or device leaves them at once, and a check
 * whose state moves marks their renders stale (rebuilt on the next visit, at most every 5 s per
 * page), so a down check shows within seconds rather than after the 30 s render cache.
 */
export function followListedItems(modules: StatusPagesModules, checks: CheckModules, hooks: Hooks) {
  const { statusPages, statusPublic } = modules
  checks.onCheckRemoved((clientId, checkId) => forgetItem(statusPages, clientId, 'check', checkId))
  hooks.deviceDeleted.listen((clientId, deviceId) => forgetItem(statusPages, clientId, 'device', deviceId))
  checks.onCheckChange((change) => {
    if (change.from === change.to) return
    for (const pageId of pagesShowing(statusPages, change.check.client_id, 'check', change.check.id)) statusPublic.cache.stale(pageId)
  })
}
