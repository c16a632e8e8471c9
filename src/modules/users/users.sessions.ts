import type { Database } from 'bun:sqlite'
import type { Clock } from '../../lib/clock'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'

/** Refresh tokens are opaque; the prefix only makes a leaked one recognisable. */
const REFRESH_PREFIX = 'vrt_'

export interface SessionDeps {
  sqlite: Database
  clock: Clock
  logger: Logger
  refreshTtlSeconds: number
}

interface RefreshRow {
  id: string
  user_id: string
  family_id: string
  client_id: string | null
  expires_at: number
  used_at: number | null
  revoked_at: number | null
}

/** Issues a refresh token (256 bits of entropy), in a new family unless one is given. Stores only its hash. */
export function issueRefreshToken(deps: SessionDeps, opts: { userId: string; clientId: string | null; familyId?: string }): string {
  const token = REFRESH_PREFIX + randomToken(32)
  const now = deps.clock.now()
  deps.sqlite
    .query('INSERT INTO refresh_tokens (id, user_id, family_id, client_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(newId('rt'), opts.userId, opts.familyId ?? newId('rtf'), opts.clientId, sha256Hex(token), now + deps.refreshTtlSeconds * 1000, now)
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
  return deps.sqlite.transaction((): RotateResult => {
    const row = deps.sqlite
      .query<RefreshRow, [string]>('SELECT id, user_id, family_id, client_id, expires_at, used_at, revoked_at FROM refresh_tokens WHERE token_hash = ?')
      .get(sha256Hex(token))
    if (!row) return { ok: false, reason: 'unknown' }
    if (row.revoked_at !== null) return { ok: false, reason: 'revoked' }
    if (row.used_at !== null) {
      revokeFamily(deps, row.family_id)
      deps.logger.warn('refresh token reused; session family revoked', { user_id: row.user_id, family_id: row.family_id })
      return { ok: false, reason: 'reused', familyId: row.family_id }
    }
    if (row.expires_at <= now) return { ok: false, reason: 'expired' }
    deps.sqlite.query('UPDATE refresh_tokens SET used_at = ? WHERE id = ?').run(now, row.id)
    const next = issueRefreshToken(deps, { userId: row.user_id, clientId: row.client_id, familyId: row.family_id })
    return { ok: true, userId: row.user_id, clientId: row.client_id, familyId: row.family_id, token: next }
  })()
}

export function revokeFamily(deps: Pick<SessionDeps, 'sqlite' | 'clock'>, familyId: string) {
  deps.sqlite.query('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL').run(deps.clock.now(), familyId)
}

/** Logout: revokes the family of a token and returns its id. Unknown tokens are ignored (no oracle for guessing). */
export function revokeFamilyOf(deps: Pick<SessionDeps, 'sqlite' | 'clock'>, token: string): string | null {
  const row = deps.sqlite.query<{ family_id: string }, [string]>('SELECT family_id FROM refresh_tokens WHERE token_hash = ?').get(sha256Hex(token))
  if (row) revokeFamily(deps, row.family_id)
  return row?.family_id ?? null
}

/** Every session of a user, e.g. after a password reset; returns the families it ended. */
export function revokeAllSessions(deps: Pick<SessionDeps, 'sqlite' | 'clock'>, userId: string): string[] {
  return deps.sqlite
    .query<{ family_id: string }, [number, string]>('UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL RETURNING family_id')
    .all(deps.clock.now(), userId)
    .map((r) => r.family_id)
}

/** Housekeeping: tokens past expiry (or revoked) for a day are of no use, not even for reuse detection. */
export function purgeOldRefreshTokens(deps: Pick<SessionDeps, 'sqlite' | 'clock'>): number {
  const cutoff = deps.clock.now() - 86_400_000
  return deps.sqlite.query('DELETE FROM refresh_tokens WHERE expires_at < ? OR revoked_at < ?').run(cutoff, cutoff).changes
}
