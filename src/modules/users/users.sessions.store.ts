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

export interface NewRefreshToken {
  id: string
  userId: string
  familyId: string
  clientId: string | null
  tokenHash: string
  expiresAt: number
  now: number
}

/** What a spend writes, as its `decide` chose: nothing, the end of the token's family, or its successor. */
export type SpendWrite =
  | { kind: 'none' }
  | { kind: 'revokeFamily'; familyId: string; now: number }
  | { kind: 'rotate'; usedId: string; now: number; next: NewRefreshToken }

/**
 * The `refresh_tokens` table (one row per refresh token, by the SHA-256 of the token), on either
 * engine (this file: SQLite; users.sessions.store.pg.ts: PostgreSQL). What must read and write
 * together is one call, done in one transaction on each engine.
 */
export interface SessionsStore {
  insert(t: NewRefreshToken): Promise<void>
  byHash(tokenHash: string): Promise<RefreshRow | null>
  /**
   * Reads the token's row and applies what `decide` (synchronous) makes of it, in one transaction
   * in which no other spend of the same token runs: of two presenting it at once, one rotates and
   * the other finds it spent.
   */
  spend<T>(tokenHash: string, decide: (row: RefreshRow | null) => { write: SpendWrite; result: T }): Promise<T>
  revokeFamily(familyId: string, now: number): Promise<void>
  /** revokes every live token of a user but those of one session (null: all); returns the families it ended */
  revokeOthersOfUser(userId: string, keepFamily: string | null, now: number): Promise<string[]>
  /** a new password hash and the end of the user's sessions but `keepFamily`'s (null: all), together; returns the families ended */
  replacePassword(userId: string, hash: string, keepFamily: string | null, now: number): Promise<string[]>
  /** families revoked at or after `from`, each with its latest revocation time */
  revokedSince(from: number): Promise<{ family_id: string; revoked_at: number }[]>
  /** deletes tokens expired or revoked before the cutoff; returns how many */
  purgeBefore(cutoff: number): Promise<number>
}

/** The store on SQLite: statements as before, each call (a spend with its writes) one synchronous transaction. */
export function createSessionsStore(sqlite: Database): SessionsStore {
  const insert = sqlite.query('INSERT INTO refresh_tokens (id, user_id, family_id, client_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const byHash = sqlite.query<RefreshRow, [string]>(
    'SELECT id, user_id, family_id, client_id, expires_at, used_at, revoked_at FROM refresh_tokens WHERE token_hash = ?',
  )
  const markUsed = sqlite.query('UPDATE refresh_tokens SET used_at = ? WHERE id = ?')
  const revokeFamily = sqlite.query('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL')
  const revokeOthers = sqlite.query<{ family_id: string }, [number, string, string | null]>(
    'UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND family_id IS NOT ? RETURNING family_id',
  )
  const setPassword = sqlite.query('UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?')
  const revokedSince = sqlite.query<{ family_id: string; revoked_at: number }, [number]>(
    'SELECT family_id, max(revoked_at) AS revoked_at FROM refresh_tokens WHERE revoked_at >= ? GROUP BY family_id',
  )
  const purge = sqlite.query('DELETE FROM refresh_tokens WHERE expires_at < ? OR revoked_at < ?')
  const add = (t: NewRefreshToken) => void insert.run(t.id, t.userId, t.familyId, t.clientId, t.tokenHash, t.expiresAt, t.now)
  const endOthers = (userId: string, keepFamily: string | null, now: number) => [...new Set(revokeOthers.all(now, userId, keepFamily).map((r) => r.family_id))]
  const spend = sqlite.transaction(<T>(tokenHash: string, decide: (row: RefreshRow | null) => { write: SpendWrite; result: T }): T => {
    const { write, result } = decide(byHash.get(tokenHash))
    if (write.kind === 'revokeFamily') revokeFamily.run(write.now, write.familyId)
    if (write.kind === 'rotate') {
      markUsed.run(write.now, write.usedId)
      add(write.next)
    }
    return result
  })
  const replacePassword = sqlite.transaction((userId: string, hash: string, keepFamily: string | null, now: number) => {
    setPassword.run(hash, now, userId)
    return endOthers(userId, keepFamily, now)
  })
  return {
    insert: async (t) => add(t),
    byHash: async (tokenHash) => byHash.get(tokenHash),
    spend: async <T>(tokenHash: string, decide: (row: RefreshRow | null) => { write: SpendWrite; result: T }) => spend(tokenHash, decide) as T,
    revokeFamily: async (familyId, now) => void revokeFamily.run(now, familyId),
    revokeOthersOfUser: async (userId, keepFamily, now) => endOthers(userId, keepFamily, now),
    replacePassword: async (userId, hash, keepFamily, now) => replacePassword(userId, hash, keepFamily, now),
    revokedSince: async (from) => revokedSince.all(from),
    purgeBefore: async (cutoff) => purge.run(cutoff, cutoff).changes,
  }
}
