import type { AppContext } from '../context'
import { createAlertsEngine, type AlertDevice, type Notify } from '../modules/alerts/alerts.engine'
import { firingCounts } from '../modules/alerts/alerts.instances.service'
import { observeSample, type AlertsDeps } from '../modules/alerts/alerts.service'
import { createAlertsStore } from '../modules/alerts/alerts.store'
import { createTicker } from '../modules/alerts/alerts.tick'
import { findDevice, listDevices } from '../modules/devices/devices.service'
import { fieldSeries } from '../modules/metrics/metrics.service'
import { emailOfUser } from '../modules/users/users.service'
import type { FleetModules } from './fleet'
import type { IdentityModules } from './identity'
import type { MonitoringModules } from './monitoring'

/** What a test (or the lead's wiring of the channels module) may put in place of the defaults. */
export interface AlertingOverrides {
  /** where notices go; default: nowhere (logged at debug) until the channels module is wired */
  notify?: Notify
}

/**
 * Alert rules: the engine hears every stored sample (pushed into the monitoring group's
 * sampleObservers) and the `alerts.evaluate` job; it publishes alert.* events on the bus and
 * hands grouped notices to `notify`.
 */
export function wireAlerts(ctx: AppContext, identity: IdentityModules, fleet: FleetModules, monitoring: MonitoringModules, overrides: AlertingOverrides = {}) {
  const devices = fleet.devices
  // the portal-api branch adds a device name and tags; until then the hostname names it and no tags match
  const toAlertDevice = (
    row: { id: string; hostname: string | null; last_seen_at: number | null } & { name?: string | null; tags?: string[] | string | null },
  ): AlertDevice => ({
    id: row.id,
    name: row.name ?? row.hostname ?? row.id,
    tags: Array.isArray(row.tags) ? row.tags : typeof row.tags === 'string' ? (JSON.parse(row.tags) as string[]) : [],
    lastSeenAt: row.last_seen_at,
  })
  const notify: Notify =
    overrides.notify ??
    ((clientId, channelIds, n) => ctx.logger.debug('alert notice (no channels module wired)', { client_id: clientId, channels: channelIds, title: n.title }))
  const store = createAlertsStore(ctx.db.sqlite)
  const engine = createAlertsEngine({
    store,
    clock: ctx.clock,
    logger: ctx.logger,
    events: ctx.events,
    notify,
    siteUrl: ctx.config.siteUrl,
    devices: {
      find: (clientId, deviceId) => {
        const row = findDevice(devices, clientId, deviceId)
        return row ? toAlertDevice(row) : null
      },
      list: (clientId) =>
        listDevices(devices, clientId).map((d) =>
          toAlertDevice({ ...d, id: d.device_id, last_seen_at: d.last_seen_at === null ? null : Date.parse(d.last_seen_at) }),
        ),
    },
    metrics: { diskTrend: (clientId, deviceId, hours) => fieldSeries(monitoring.metrics, clientId, deviceId, 'disk_used_percent', hours) },
  })
  engine.boot()
  const alerts: AlertsDeps & { logger: AppContext['logger'] } = {
    store,
    clock: ctx.clock,
    logger: ctx.logger,
    engine,
    devices: engine.deps.devices,
    users: { emailOf: (userId) => emailOfUser(identity.users, userId) },
  }
  monitoring.sampleObservers.push((sample) => observeSample(alerts, sample))
  const tick = createTicker(engine)
  return {
    alerts,
    alertsTick: tick,
    /** for the fleet overview: firing alerts per device */
    alertsFiring: (clientId: string) => firingCounts(alerts, clientId),
  }
}

export type AlertingModules = ReturnType<typeof wireAlerts>
