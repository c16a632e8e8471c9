import type { Database } from 'bun:sqlite'

export interface RefreshRow {
  id: string
  user_id: string
  family_id: string
  client_id: string | null
  expires_at: number
  used_at: number | null
  revoked_at: number | null
}

/** The `refresh_tokens` table: one row per refresh token, by the SHA-256 of the token. */
export function createSessionsStore(sqlite: Database) {
  const insert = sqlite.query('INSERT INTO refresh_tokens (id, user_id, family_id, client_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const byHash = sqlite.query<RefreshRow, [string]>(
    'SELECT id, user_id, family_id, client_id, expires_at, used_at, revoked_at FROM refresh_tokens WHERE token_hash = ?',
  )
  const markUsed = sqlite.query('UPDATE refresh_tokens SET used_at = ? WHERE id = ?')
  const revokeFamily = sqlite.query('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL')
  const revokeUser = sqlite.query<{ family_id: string }, [number, string]>(
    'UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL RETURNING family_id',
  )
  const revokeOthers = sqlite.query<{ family_id: string }, [number, string, string | null]>(
    'UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND family_id IS NOT ? RETURNING family_id',
  )
  const revokedSince = sqlite.query<{ family_id: string; revoked_at: number }, [number]>(
    'SELECT family_id, max(revoked_at) AS revoked_at FROM refresh_tokens WHERE revoked_at >= ? GROUP BY family_id',
  )
  const purge = sqlite.query('DELETE FROM refresh_tokens WHERE expires_at < ? OR revoked_at < ?')
  return {
    insert(t: { id: string; userId: string; familyId: string; clientId: string | null; tokenHash: string; expiresAt: number; now: number }) {
      insert.run(t.id, t.userId, t.familyId, t.clientId, t.tokenHash, t.expiresAt, t.now)
    },
    byHash: (tokenHash: string) => byHash.get(tokenHash),
    markUsed: (id: string, now: number) => void markUsed.run(now, id),
    revokeFamily: (familyId: string, now: number) => void revokeFamily.run(now, familyId),
    /** revokes every live token of a user; returns the families it ended */
    revokeAllOfUser: (userId: string, now: number) => revokeUser.all(now, userId).map((r) => r.family_id),
    /** revokes every live token of a user but those of one session (null: all); returns the families it ended */
    revokeOthersOfUser: (userId: string, keepFamily: string | null, now: number) => [
      ...new Set(revokeOthers.all(now, userId, keepFamily).map((r) => r.family_id)),
    ],
    /** families revoked at or after `from`, each with its latest revocation time */
    revokedSince: (from: number) => revokedSince.all(from),
    /** deletes tokens expired or revoked before the cutoff; returns how many */
    purgeBefore: (cutoff: number) => purge.run(cutoff, cutoff).changes,
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn)(),
  }
}

export type SessionsStore = ReturnType<typeof createSessionsStore>
