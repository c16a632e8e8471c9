import type { Database } from 'bun:sqlite'
import type { Config } from '../../config'
import type { MemberRole } from '../../http/principal'
import { tierOf, type Plan } from '../billing/billing.catalog'

export interface ClientLimits {
  /** requests per minute for callers of this client: the client's override, else its plan tier's */
  rateLimitFor(clientId: string): number
  /** forget cached limits after a plan or limit change, so it bites on the next request */
  invalidate(clientId: string): void
}

/** Rate limits are read on every request, so they are cached per client until invalidated. */
export function clientLimits(sqlite: Database, plans: () => Plan[], rateLimits: Config['rateLimits']): ClientLimits {
  const cache = new Map<string, number>()
  const read = sqlite.query<{ plan_type: string; rate_limit: number | null }, [string]>(
    'SELECT plan_type, rate_limit FROM clients WHERE id = ?',
  )
  return {
    rateLimitFor(clientId) {
      let limit = cache.get(clientId)
      if (limit === undefined) {
        const row = read.get(clientId)
        limit = row?.rate_limit ?? rateLimits[tierOf(plans(), row?.plan_type ?? 'free')]
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
export function effectiveLimits(sqlite: Database, clientId: string, plan: { maxDevices: number; maxUsers: number }) {
  const o = sqlite
    .query<{ max_devices_override: number | null; max_users_override: number | null }, [string]>(
      'SELECT max_devices_override, max_users_override FROM clients WHERE id = ?',
    )
    .get(clientId)
  return { maxDevices: o?.max_devices_override ?? plan.maxDevices, maxUsers: o?.max_users_override ?? plan.maxUsers }
}

/** The caller's role in a client, or null when it is not an active member. Indexed, so read each time. */
export function memberRoles(sqlite: Database) {
  const read = sqlite.query<{ role: string }, [string, string]>(
    "SELECT role FROM members WHERE user_id = ? AND client_id = ? AND status = 'active'",
  )
  return (userId: string, clientId: string): MemberRole | null => (read.get(userId, clientId)?.role as MemberRole) ?? null
}
