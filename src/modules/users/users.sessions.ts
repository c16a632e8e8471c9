import type { Clock } from '../../lib/clock'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import type { NewRefreshToken, SessionsStore, SpendWrite } from './users.sessions.store'

/** Refresh tokens are opaque; the prefix only makes a leaked one recognisable. */
const REFRESH_PREFIX = 'vrt_'

export interface SessionDeps {
  sessions: SessionsStore
  clock: Clock
  logger: Logger
  refreshTtlSeconds: number
}

/** A refresh token (256 bits of entropy) and the row that keeps only its hash. */
function newRefreshToken(deps: SessionDeps, opts: { userId: string; clientId: string | null; familyId?: string }, now: number) {
  const token = REFRESH_PREFIX + randomToken(32)
  const row: NewRefreshToken = {
    id: newId('rt'),
    userId: opts.userId,
    familyId: opts.familyId ?? newId('rtf'),
    clientId: opts.clientId,
    tokenHash: sha256Hex(token),
    expiresAt: now + deps.refreshTtlSeconds * 1000,
    now,
  }
  return { token, row }
}

/** Issues a refresh token, in a new family unless one is given. Stores only its hash. */
export async function issueRefreshToken(deps: SessionDeps, opts: { userId: string; clientId: string | null; familyId?: string }): Promise<string> {
  const { token, row } = newRefreshToken(deps, opts, deps.clock.now())
  await deps.sessions.insert(row)
  return token
}

export type RotateResult =
  | { ok: true; userId: string; clientId: string | null; familyId: string; token: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused'; familyId?: string }

const NOTHING: SpendWrite = { kind: 'none' }

/**
 * Single use: spends the token and issues its successor in the same family. Presenting a spent
 * token again means two parties hold it (one of them a thief), so the whole family is revoked
 * and both must sign in again. The store reads and writes in one transaction, so of two
 * presenting the token at once one rotates and the other is the reuse.
 */
export async function rotateRefreshToken(deps: SessionDeps, token: string): Promise<RotateResult> {
  const now = deps.clock.now()
  let reusedBy: string | null = null
  const result = await deps.sessions.spend(sha256Hex(token), (row): { write: SpendWrite; result: RotateResult } => {
    if (!row) return { write: NOTHING, result: { ok: false, reason: 'unknown' } }
    if (row.revoked_at !== null) return { write: NOTHING, result: { ok: false, reason: 'revoked' } }
    if (row.used_at !== null) {
      reusedBy = row.user_id
      return { write: { kind: 'revokeFamily', familyId: row.family_id, now }, result: { ok: false, reason: 'reused', familyId: row.family_id } }
    }
    if (row.expires_at <= now) return { write: NOTHING, result: { ok: false, reason: 'expired' } }
    const next = newRefreshToken(deps, { userId: row.user_id, clientId: row.client_id, familyId: row.family_id }, now)
    return {
      write: { kind: 'rotate', usedId: row.id, now, next: next.row },
      result: { ok: true, userId: row.user_id, clientId: row.client_id, familyId: row.family_id, token: next.token },
    }
  })
  if (!result.ok && result.reason === 'reused') {
    deps.logger.warn('refresh token reused; session family revoked', { user_id: reusedBy, family_id: result.familyId })
  }
  return result
}

/** Logout: revokes the family of a token and returns its id. Unknown tokens are ignored (no oracle for guessing). */
export async function revokeFamilyOf(deps: Pick<SessionDeps, 'sessions' | 'clock'>, token: string): Promise<string | null> {
  const row = await deps.sessions.byHash(sha256Hex(token))
  if (row) await deps.sessions.revokeFamily(row.family_id, deps.clock.now())
  return row?.family_id ?? null
}

/** Housekeeping: tokens past expiry (or revoked) for a day are of no use, not even for reuse detection. */
export const purgeOldRefreshTokens = (deps: Pick<SessionDeps, 'sessions' | 'clock'>): Promise<number> =>
  deps.sessions.purgeBefore(deps.clock.now() - 86_400_000)
