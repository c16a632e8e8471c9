import type { AppContext } from '../context'
import { listDevices } from '../modules/devices/devices.service'
import { createRenderCache } from '../modules/status-pages/status-pages.cache'
import type { StatusChecksPort, StatusDevicesPort } from '../modules/status-pages/status-pages.ports'
import type { StatusPagesDeps } from '../modules/status-pages/status-pages.service'
import { createStatusPagesStore } from '../modules/status-pages/status-pages.store'
import { publicView } from '../modules/status-pages/status-pages.view'
import type { FleetModules } from './fleet'

/** Public status pages: the team's API and the public routes share one store and one render cache. */
export function wireStatusPages(ctx: AppContext, fleet: FleetModules, ports: { checks: StatusChecksPort }) {
  const store = createStatusPagesStore(ctx.db.sqlite)
  const devices: StatusDevicesPort = {
    views(clientId, ids) {
      const wanted = new Set(ids)
      return listDevices(fleet.devices, clientId)
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
