import type { AppContext } from '../context'
import type { FleetModules } from './fleet'
import type { IdentityModules } from './identity'

/** Metrics, recommendations and the AI engine: what the devices report and what it means. */
export function wireMonitoring(ctx: AppContext, identity: IdentityModules, fleet: FleetModules) {
  void ctx
  void identity
  void fleet
  return {}
}

export type MonitoringModules = ReturnType<typeof wireMonitoring>
