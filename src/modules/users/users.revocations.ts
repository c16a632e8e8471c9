import type { Clock } from '../../lib/clock'
import type { SessionsStore } from './users.sessions.store'
import { ACCESS_TOKEN_TTL_SECONDS, type SessionRevocations } from './users.tokens'

/** How often the database is re-read for revocations made by another process (`vigil admin reset-password`). */
export const REVOCATION_POLL_MS = 5_000
/** A re-read looks back this far, so a revocation committed just before the previous read is not missed. */
const OVERLAP_MS = 60_000

/**
 * Revoked session families, in memory, so an access token of a revoked session is refused at
 * once without a query per request. Loaded on first use with the families revoked within one
 * access-token lifetime (older ones have no live access token left), re-read every few seconds
 * for revocations written by other processes, and pruned once their tokens have all expired.
 * Only a check that falls due waits for the read; requests arriving meanwhile share it.
 */
export function sessionRevocations(
  sessions: Pick<SessionsStore, 'revokedSince'>,
  clock: Clock,
  accessTtlMs = ACCESS_TOKEN_TTL_SECONDS * 1000,
): SessionRevocations {
  const revokedAt = new Map<string, number>()
  let lastRead = 0
  let reading: Promise<void> | null = null
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
  return {
    isRevoked(sessionId) {
      const now = clock.now()
      if (now - lastRead < REVOCATION_POLL_MS) return revokedAt.has(sessionId)
      reading ??= read(now).finally(() => {
        reading = null
      })
      return reading.then(() => revokedAt.has(sessionId))
    },
    add(sessionIds) {
      const now = clock.now()
      for (const id of sessionIds) revokedAt.set(id, now)
    },
  }
}
