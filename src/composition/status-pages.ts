import type { AppContext } from '../context'
import type { PeerLink } from '../lib/peer-link'
import { listDevicesNow } from '../modules/devices/devices.service'
import { createRenderCache } from '../modules/status-pages/status-pages.cache'
import type { StatusChecksPort, StatusDevicesPort } from '../modules/status-pages/status-pages.ports'
import { forgetItem, pagesShowing, type StatusPagesDeps } from '../modules/status-pages/status-pages.service'
import { createStatusPagesStore } from '../modules/status-pages/status-pages.store'
import { createStatusPagesStorePg } from '../modules/status-pages/status-pages.store.pg'
import { publicView } from '../modules/status-pages/status-pages.view'
import type { CheckModules } from './checks'
import { onEngine } from './engine'
import type { FleetModules } from './fleet'
import type { Hooks } from './hooks'

/** a page changed (dropped from every hub's render cache) or shows a check whose state moved (stale) */
const RENDER_TOPIC = 'status-pages.render'

/**
 * Public status pages: the team's API and the public routes share one store and one render
 * cache. With several hubs, a page changed on one is dropped from the others' caches, and a
 * check's move marks their renders stale, through `peers`; a hub that missed messages drops its
 * whole cache (each page is rebuilt on its next visit).
 */
export function wireStatusPages(ctx: AppContext, fleet: FleetModules, ports: { checks: StatusChecksPort; peers?: PeerLink }) {
  const store = onEngine(ctx, createStatusPagesStore, createStatusPagesStorePg)
  const devices: StatusDevicesPort = {
    async views(clientId, ids) {
      const wanted = new Set(ids)
      return (await listDevicesNow(fleet.devices, clientId))
        .filter((d) => wanted.has(d.device_id))
        .map((d) => ({ id: d.device_id, name: d.name ?? d.hostname ?? 'Server', state: d.status }))
    },
  }
  const checks = ports.checks
  const cache = createRenderCache(ctx.clock, (page) => publicView({ store, clock: ctx.clock, checks, devices }, page))
  const peers = ports.peers
  peers?.on(RENDER_TOPIC, (body: unknown) => {
    const { id, stale } = body as { id: string; stale?: boolean }
    if (stale) cache.stale(id)
    else cache.invalidate(id)
  })
  peers?.onMissed(() => cache.clear())
  const changed = (pageId: string) => {
    cache.invalidate(pageId)
    peers?.send(RENDER_TOPIC, '', JSON.stringify({ id: pageId }))
  }
  const stale = (pageId: string) => {
    cache.stale(pageId)
    peers?.send(RENDER_TOPIC, '', JSON.stringify({ id: pageId, stale: true }))
  }
  const siteHost = new URL(ctx.config.siteUrl).hostname.toLowerCase()
  const statusPages: StatusPagesDeps = { store, clock: ctx.clock, devices, changed, reservedHosts: [siteHost] }
  return { statusPages, statusPublic: { store, cache }, staleRender: stale, logger: ctx.logger }
}

export type StatusPagesModules = ReturnType<typeof wireStatusPages>

/**
 * The pages follow what they list: a deleted check or device leaves them at once, and a check
 * whose state moves marks their renders stale (rebuilt on the next visit, at most every 5 s per
 * page), so a down check shows within seconds rather than after the 30 s render cache.
 */
export function followListedItems(modules: StatusPagesModules, checks: CheckModules, hooks: Hooks) {
  const { statusPages } = modules
  const failed = (what: string) => (err: unknown) => modules.logger.error(`status pages: ${what} failed`, { error: String(err) })
  // awaited by the check's delete: the page no longer lists it when the delete is answered
  checks.onCheckRemoved((clientId, checkId) => forgetItem(statusPages, clientId, 'check', checkId))
  hooks.deviceDeleted.listen((clientId, deviceId) => void forgetItem(statusPages, clientId, 'device', deviceId).catch(failed('dropping a deleted device')))
  checks.onCheckChange((change) => {
    if (change.from === change.to) return
    void pagesShowing(statusPages, change.check.client_id, 'check', change.check.id)
      .then((ids) => {
        for (const pageId of ids) modules.staleRender(pageId)
      })
      .catch(failed('marking renders stale'))
  })
}
