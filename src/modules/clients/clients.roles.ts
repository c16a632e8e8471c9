import type { MemberRole } from '../../http/principal'
import type { Clock } from '../../lib/clock'
import type { PeerLink } from '../../lib/peer-link'

/** The member's role in a client, read on every portal request. */
export interface MemberRoles {
  /** the user's role in the client while an active member, else null; answered at once when it can be */
  roleOf(userId: string, clientId: string): MemberRole | null | Promise<MemberRole | null>
  /** a client's members changed on this hub (a role, a status, a removal, an acceptance): its cached roles go, on every hub; none without a cache */
  changed?(clientId: string): void
}

/** the hubs' link topic: a client whose members changed on one hub, whose cached roles every other hub drops */
export const MEMBERS_CHANGED_TOPIC = 'client.members-changed'
/** a cached role is read again after this long, whatever the link said (a safety net, not the means) */
export const ROLE_TTL_MS = 30_000
/** entries past this many are dropped whole */
const MAX_CACHED = 100_000

/** On SQLite (one hub): the statement answers at once, nothing to cache nor to tell. */
export const directMemberRoles = (read: (userId: string, clientId: string) => MemberRole | null): MemberRoles => ({ roleOf: read })

/**
 * On PostgreSQL (several hubs): each hub caches the roles it read, per client, so a request costs
 * no query once its member was seen. A change made on one hub drops the client's roles there and,
 * through `peers`, on every other hub as they hear it, so a removed member is refused everywhere
 * on the next request; a hub that may have missed messages drops them all. A role is read again
 * after ROLE_TTL_MS in any case.
 */
export function cachedMemberRoles(
  read: (userId: string, clientId: string) => Promise<MemberRole | null>,
  clock: Clock,
  peers?: Pick<PeerLink, 'send' | 'on' | 'onMissed'>,
): MemberRoles {
  const byClient = new Map<string, Map<string, { role: MemberRole | null; at: number }>>()
  let size = 0
  /** bumped by every drop: a read that began before it does not fill the cache with what it read */
  let generation = 0
  const drop = (clientId: string | null) => {
    generation++
    if (clientId === null) {
      byClient.clear()
      size = 0
      return
    }
    size -= byClient.get(clientId)?.size ?? 0
    byClient.delete(clientId)
  }
  peers?.on(MEMBERS_CHANGED_TOPIC, (_body, clientId) => drop(clientId))
  peers?.onMissed((clientId) => drop(clientId))
  return {
    roleOf(userId, clientId) {
      const now = clock.now()
      const hit = byClient.get(clientId)?.get(userId)
      if (hit && now - hit.at < ROLE_TTL_MS) return hit.role
      const started = generation
      return read(userId, clientId).then((role) => {
        if (started !== generation) return role
        if (size >= MAX_CACHED) drop(null)
        let users = byClient.get(clientId)
        if (!users) byClient.set(clientId, (users = new Map()))
        if (!users.has(userId)) size++
        users.set(userId, { role, at: now })
        return role
      })
    },
    changed(clientId) {
      drop(clientId)
      peers?.send(MEMBERS_CHANGED_TOPIC, clientId, '{}')
    },
  }
}
