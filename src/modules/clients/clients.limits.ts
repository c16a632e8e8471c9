import type { PeerLink } from '../../lib/peer-link'
import type { ClientRow } from './clients.store'

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
  /** requests per minute for callers of this client: the client's override, else its plan tier's; at once when cached */
  rateLimitFor(clientId: string): number | Promise<number>
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
 * Rate limits are read on every request, so they are cached per client until invalidated; a read
 * answered at once (SQLite's statement) keeps the first request of a client synchronous too.
 * With several hubs (`peers`), an invalidation is sent to the others, which drop the client's cached limit as they hear it; a hub
 * that may have missed some drops them all.
 */
export function clientLimits(
  store: { byId(id: string): ClientRow | null | Promise<ClientRow | null> },
  plans: PlanRates,
  own: OwnInstanceLimits | null = null,
  peers?: Pick<PeerLink, 'send' | 'on' | 'onMissed'>,
): ClientLimits {
  const cache = new Map<string, number>()
  /** bumped by every invalidation: a read that began before one does not fill the cache */
  let generation = 0
  const limitOf = (row: ClientRow | null) => {
    const planType = row?.plan_type ?? FREE_PLAN
    return row?.rate_limit ?? (ownLimitsApply({ plan_type: planType }, own) ? own.rateLimit : plans.rateLimitOf(planType))
  }
  const remember = (clientId: string, limit: number) => {
    if (cache.size > 100_000) cache.clear()
    cache.set(clientId, limit)
    return limit
  }
  const drop = (clientId: string | null) => {
    generation++
    if (clientId === null) cache.clear()
    else cache.delete(clientId)
  }
  peers?.on(LIMITS_CHANGED_TOPIC, (_body, clientId) => drop(clientId))
  peers?.onMissed(drop)
  return {
    rateLimitFor(clientId) {
      const limit = cache.get(clientId)
      if (limit !== undefined) return limit
      const row = store.byId(clientId)
      if (!(row instanceof Promise)) return remember(clientId, limitOf(row))
      const started = generation
      return row.then((r) => (started === generation ? remember(clientId, limitOf(r)) : limitOf(r)))
    },
    invalidate(clientId) {
      drop(clientId)
      peers?.send(LIMITS_CHANGED_TOPIC, clientId, '{}')
    },
  }
}
