import type { Clock } from '../../lib/clock'
import type { PeerLink } from '../../lib/peer-link'
import type { SessionsStore } from './users.sessions.store'
import { ACCESS_TOKEN_TTL_SECONDS, type SessionRevocations } from './users.tokens'

/** How often the database is re-read for revocations made by another process (`vigil admin reset-password`). */
export const REVOCATION_POLL_MS = 5_000
/** A re-read looks back this far, so a revocation committed just before the previous read is not missed. */
const OVERLAP_MS = 60_000
/** the hubs' link topic: sessions one hub revoked, which every other hub refuses from then on */
export const REVOKED_TOPIC = 'session.revoked'
/** a message of more ids than this is not one a hub sends (a user's sessions are far fewer) */
const MAX_IDS = 10_000

/**
 * Revoked session families, in memory, so an access token of a revoked session is refused at
 * once without a query per request. Loaded on first use with the families revoked within one
 * access-token lifetime (older ones have no live access token left), re-read every few seconds
 * for revocations written by other processes, and pruned once their tokens have all expired.
 * Only a check that falls due waits for the read; requests arriving meanwhile share it.
 * With several hubs (`peers`), a revocation made on one is sent to the others, which refuse
 * the session's tokens as soon as they hear it rather than at their next read; when a hub may
 * have missed some (its link dropped), its next check reads the database again.
 */
export function sessionRevocations(
  sessions: Pick<SessionsStore, 'revokedSince'>,
  clock: Clock,
  accessTtlMs = ACCESS_TOKEN_TTL_SECONDS * 1000,
  peers?: Pick<PeerLink, 'send' | 'on' | 'onMissed'>,
): SessionRevocations {
  const revokedAt = new Map<string, number>()
  let lastRead = 0
  let reading: Promise<void> | null = null
  let stale = false
  const read = async (now: number) => {
    const from = lastRead ? lastRead - OVERLAP_MS : now - accessTtlMs
    for (const r of await sessions.revokedSince(from)) if (!revokedAt.has(r.family_id)) revokedAt.set(r.family_id, r.revoked_at)
    lastRead = now
    // Insertion order is roughly revocation order: drop from the front while expired.
    for (const [id, at] of revokedAt) {
      if (at + accessTtlMs > now - OVERLAP_MS) break
      revokedAt.delete(id)
    }
  }
  const remember = (sessionIds: readonly string[]) => {
    const now = clock.now()
    for (const id of sessionIds) revokedAt.set(id, now)
  }
  peers?.on(REVOKED_TOPIC, (body) => {
    const ids = (body as { ids?: unknown } | null)?.ids
    if (Array.isArray(ids) && ids.length <= MAX_IDS) remember(ids.filter((id): id is string => typeof id === 'string' && id.length <= 100))
  })
  peers?.onMissed((key) => {
    if (key === null) stale = true
  })
  return {
    isRevoked(sessionId) {
      const now = clock.now()
      if (!stale && now - lastRead < REVOCATION_POLL_MS) return revokedAt.has(sessionId)
      stale = false
      reading ??= read(now).finally(() => {
        reading = null
      })
      return reading.then(() => revokedAt.has(sessionId))
    },
    add(sessionIds) {
      remember(sessionIds)
      if (sessionIds.length > 0) peers?.send(REVOKED_TOPIC, '', JSON.stringify({ ids: sessionIds }))
    },
  }
}
