import type { AppContext } from '../context'
import type { IdentityModules } from './identity'

/** Devices, API keys and billing: what a tenant runs and pays for. */
export function wireFleet(ctx: AppContext, identity: IdentityModules) {
  void ctx
  void identity
  return {}
}

export type FleetModules = ReturnType<typeof wireFleet>
