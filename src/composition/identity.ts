import type { AppContext } from '../context'

/** Users, clients (members, invitations), versions, health: who is who, and the tenant itself. */
export function wireIdentity(ctx: AppContext) {
  void ctx
  return {}
}

export type IdentityModules = ReturnType<typeof wireIdentity>
