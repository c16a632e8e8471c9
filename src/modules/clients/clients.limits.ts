import type { PeerLink } from '../../lib/peer-link'
import type { ClientRow, SqliteClients } from './clients.store'

/**
 * An own instance (no billing) has no plans to sell: a client on the free plan gets these limits
 * instead of the free plan's, unless the operator set its own for that client. Applied when read,
 * not written into the rows, so raising them (or upgrading an instance whose clients were
 * created with one device) takes effect on the next start, and a switch to service mode brings
 * the plans back without a migration.
 */
export interface OwnInstanceLimits {
  maxDevices: number
  maxUsers: number
  rateLimit: number
}

/** The plan whose limits an own instance replaces: the one every client starts on. */
const FREE_PLAN = 'free'

const ownLimitsApply = (row: Pick<ClientRow, 'plan_type'>, own: OwnInstanceLimits | null): own is OwnInstanceLimits =>
  own !== null && (row.plan_type ?? FREE_PLAN) === FREE_PLAN

/** The row with the limits in force: the own instance's for a free client there, the operator's overrides winning. */
export function withLimitsInForce(row: ClientRow, own: OwnInstanceLimits | null): ClientRow {
  if (!ownLimitsApply(row, own)) return row
  return { ...row, max_devices: row.max_devices_override ?? own.maxDevices, max_users: row.max_users_override ?? own.maxUsers }
}

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

/** the hubs' link topic: a client whose limits changed on one hub, which every other hub reads again */
export const LIMITS_CHANGED_TOPIC = 'client.limits-changed'

/**
 * Rate limits are read on every request, so they are cached per client until invalidated (a synchronous read: the rate-limit port is).
 * With several hubs (`peers`), an invalidation is sent to the others, which drop the client's cached limit as they hear it; a hub
 * that may have missed some drops them all.
 */
export function clientLimits(
  store: Pick<SqliteClients, 'byId'>,
  plans: PlanRates,
  own: OwnInstanceLimits | null = null,
  peers?: Pick<PeerLink, 'send' | 'on' | 'onMissed'>,
): ClientLimits {
  const cache = new Map<string, number>()
  peers?.on(LIMITS_CHANGED_TOPIC, (_body, clientId) => void cache.delete(clientId))
  peers?.onMissed((clientId) => (clientId === null ? cache.clear() : void cache.delete(clientId)))
  return {
    rateLimitFor(clientId) {
      let limit = cache.get(clientId)
      if (limit === undefined) {
        const row = store.byId(clientId)
        const planType = row?.plan_type ?? FREE_PLAN
        limit = row?.rate_limit ?? (ownLimitsApply({ plan_type: planType }, own) ? own.rateLimit : plans.rateLimitOf(planType))
        if (cache.size > 100_000) cache.clear()
        cache.set(clientId, limit)
      }
      return limit
    },
    invalidate(clientId) {
      cache.delete(clientId)
      peers?.send(LIMITS_CHANGED_TOPIC, clientId, '{}')
    },
  }
}

/**
 * The limits a plan grants a client, after the operator's overrides (which win until the
 * operator clears them). For billing, inside its transaction.
 */
export function limitsUnderPlan(deps: { sqlite: Pick<SqliteClients, 'byId'> }, clientId: string, plan: { maxDevices: number; maxUsers: number }) {
  const o = deps.sqlite.byId(clientId)
  return { maxDevices: o?.max_devices_override ?? plan.maxDevices, maxUsers: o?.max_users_override ?? plan.maxUsers }
}
