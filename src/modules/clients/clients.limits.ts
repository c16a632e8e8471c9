import type { ClientsStore } from './clients.store'

export interface ClientLimits {
  /** requests per minute for callers of this client: the client's override, else its plan tier's */
  rateLimitFor(clientId: string): number
  /** forget cached limits after a plan or limit change, so it bites on the next request */
  invalidate(clientId: string): void
}

/** What the limits need of the billing catalog: the requests per minute of a plan's tier. */
export interface PlanRates {
  rateLimitOf(planType: string): number
}

/** Rate limits are read on every request, so they are cached per client until invalidated. */
export function clientLimits(store: Pick<ClientsStore, 'byId'>, plans: PlanRates): ClientLimits {
  const cache = new Map<string, number>()
  return {
    rateLimitFor(clientId) {
      let limit = cache.get(clientId)
      if (limit === undefined) {
        const row = store.byId(clientId)
        limit = row?.rate_limit ?? plans.rateLimitOf(row?.plan_type ?? 'free')
        if (cache.size > 100_000) cache.clear()
        cache.set(clientId, limit)
      }
      return limit
    },
    invalidate: (clientId) => void cache.delete(clientId),
  }
}

/**
 * The limits a plan grants a client, after the operator's overrides (which win until the
 * operator clears them). For billing, inside its transaction.
 */
export function limitsUnderPlan(deps: { store: Pick<ClientsStore, 'byId'> }, clientId: string, plan: { maxDevices: number; maxUsers: number }) {
  const o = deps.store.byId(clientId)
  return { maxDevices: o?.max_devices_override ?? plan.maxDevices, maxUsers: o?.max_users_override ?? plan.maxUsers }
}
