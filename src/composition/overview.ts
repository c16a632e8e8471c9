import type { AppContext } from '../context'
import { deviceSummaries } from '../modules/devices/devices.service'
import { fleetFigures } from '../modules/metrics/metrics.fleet'
import type { OverviewDeps } from '../modules/overview/overview.service'
import type { AlertingModules } from './alerting'
import type { FleetModules } from './fleet'
import type { Filled } from './ports'
import type { MonitoringModules } from './monitoring'

/** The dashboard's fleet overview, after the alerts group: it reads devices, their figures and the firing alerts. */
export function wireOverview(
  ctx: AppContext,
  fleet: FleetModules,
  monitoring: MonitoringModules,
  alerting: AlertingModules,
): Filled<OverviewDeps, 'alertsFiring'> {
  return {
    clock: ctx.clock,
    devices: { list: (clientId) => deviceSummaries(fleet.devices, clientId) },
    metrics: { figures: (seqs, now) => fleetFigures(monitoring.metrics, seqs, now) },
    alertsFiring: alerting.alertsFiring,
  }
}
