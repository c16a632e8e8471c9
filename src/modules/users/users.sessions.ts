import type { Clock } from '../../lib/clock'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import type { SessionsStore } from './users.sessions.store'

/** Refresh tokens are opaque; the prefix only makes a leaked one recognisable. */
const REFRESH_PREFIX = 'vrt_'

export interface SessionDeps {
  sessions: SessionsStore
  clock: Clock
  logger: Logger
  refreshTtlSeconds: number
}

/** Issues a refresh token (256 bits of entropy), in a new family unless one is given. Stores only its hash. */
export function issueRefreshToken(deps: SessionDeps, opts: { userId: string; clientId: string | null; familyId?: string }): string {
  const token = REFRESH_PREFIX + randomToken(32)
  const now = deps.clock.now()
  deps.sessions.insert({
    id: newId('rt'),
    userId: opts.userId,
    familyId: opts.familyId ?? newId('rtf'),
    clientId: opts.clientId,
    tokenHash: sha256Hex(token),
    expiresAt: now + deps.refreshTtlSeconds * 1000,
    now,
  })
  return token
}

export type RotateResult =
  | { ok: true; userId: string; clientId: string | null; familyId: string; token: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused'; familyId?: string }

/**
 * Single use: spends the token and issues its successor in the same family. Presenting a spent
 * token again means two parties hold it (one of them a thief), so the whole family is revoked
 * and both must sign in again.
 */
export function rotateRefreshToken(deps: SessionDeps, token: string): RotateResult {
  const now = deps.clock.now()
  return deps.sessions.transaction((): RotateResult => {
    const row = deps.sessions.byHash(sha256Hex(token))
    if (!row) return { ok: false, reason: 'unknown' }
    if (row.revoked_at !== null) return { ok: false, reason: 'revoked' }
    if (row.used_at !== null) {
      deps.sessions.revokeFamily(row.family_id, now)
      deps.logger.warn('refresh token reused; session family revoked', { user_id: row.user_id, family_id: row.family_id })
      return { ok: false, reason: 'reused', familyId: row.family_id }
    }
    if (row.expires_at <= now) return { ok: false, reason: 'expired' }
    deps.sessions.markUsed(row.id, now)
    const next = issueRefreshToken(deps, { userId: row.user_id, clientId: row.client_id, familyId: row.family_id })
    return { ok: true, userId: row.user_id, clientId: row.client_id, familyId: row.family_id, token: next }
  })
}

/** Logout: revokes the family of a token and returns its id. Unknown tokens are ignored (no oracle for guessing). */
export function revokeFamilyOf(deps: Pick<SessionDeps, 'sessions' | 'clock'>, token: string): string | null {
  const row = deps.sessions.byHash(sha256Hex(token))
  if (row) deps.sessions.revokeFamily(row.family_id, deps.clock.now())
  return row?.family_id ?? null
}

/** Every session of a user, e.g. after a password reset; returns the families it ended. */
export const revokeAllSessions = (deps: Pick<SessionDeps, 'sessions' | 'clock'>, userId: string): string[] =>
  deps.sessions.revokeAllOfUser(userId, deps.clock.now())

/** Housekeeping: tokens past expiry (or revoked) for a day are of no use, not even for reuse detection. */
export const purgeOldRefreshTokens = (deps: Pick<SessionDeps, 'sessions' | 'clock'>): number => deps.sessions.purgeBefore(deps.clock.now() - 86_400_000)
