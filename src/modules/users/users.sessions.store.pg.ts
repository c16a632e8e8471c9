import type { SQL } from 'bun'
import { type Raw, numOrNull } from '../../db/pg/rows'
import type { NewRefreshToken, RefreshRow, SessionsStore } from './users.sessions.store'

const refreshRow = (r: Raw): RefreshRow => ({
  id: r.id as string,
  user_id: r.user_id as string,
  family_id: r.family_id as string,
  client_id: (r.client_id as string | null) ?? null,
  expires_at: Number(r.expires_at),
  used_at: numOrNull(r.used_at),
  revoked_at: numOrNull(r.revoked_at),
})

const insert = (sql: SQL, t: NewRefreshToken) =>
  sql`INSERT INTO refresh_tokens (id, user_id, family_id, client_id, token_hash, expires_at, created_at)
    VALUES (${t.id}, ${t.userId}, ${t.familyId}, ${t.clientId}, ${t.tokenHash}, ${t.expiresAt}, ${t.now})`

const endOthers = async (sql: SQL, userId: string, keepFamily: string | null, now: number): Promise<string[]> => {
  const rows: { family_id: string }[] = await sql`UPDATE refresh_tokens SET revoked_at = ${now}
    WHERE user_id = ${userId} AND revoked_at IS NULL AND family_id IS DISTINCT FROM ${keepFamily}::text RETURNING family_id`
  return [...new Set(rows.map((r) => r.family_id))]
}

/** The refresh_tokens table on PostgreSQL: the same answers as the SQLite store (users.sessions.store.contract.test.ts). */
export function createSessionsStorePg(sql: SQL): SessionsStore {
  return {
    async insert(t) {
      await insert(sql, t)
    },
    async byHash(tokenHash) {
      const [r]: Raw[] =
        await sql`SELECT id, user_id, family_id, client_id, expires_at, used_at, revoked_at FROM refresh_tokens WHERE token_hash = ${tokenHash}`
      return r ? refreshRow(r) : null
    },
    spend(tokenHash, decide) {
      return sql.begin(async (tx) => {
        // FOR UPDATE: a second spend of the same token waits here, then reads it spent
        const [r]: Raw[] = await tx`SELECT id, user_id, family_id, client_id, expires_at, used_at, revoked_at
          FROM refresh_tokens WHERE token_hash = ${tokenHash} FOR UPDATE`
        const { write, result } = decide(r ? refreshRow(r) : null)
        if (write.kind === 'revokeFamily') {
          await tx`UPDATE refresh_tokens SET revoked_at = ${write.now} WHERE family_id = ${write.familyId} AND revoked_at IS NULL`
        }
        if (write.kind === 'rotate') {
          await tx`UPDATE refresh_tokens SET used_at = ${write.now} WHERE id = ${write.usedId}`
          await insert(tx as unknown as SQL, write.next)
        }
        return result
      })
    },
    async revokeFamily(familyId, now) {
      await sql`UPDATE refresh_tokens SET revoked_at = ${now} WHERE family_id = ${familyId} AND revoked_at IS NULL`
    },
    revokeOthersOfUser: (userId, keepFamily, now) => endOthers(sql, userId, keepFamily, now),
    replacePassword(userId, hash, keepFamily, now) {
      return sql.begin(async (tx) => {
        await tx`UPDATE users SET password_hash = ${hash}, updated_at = ${now} WHERE id = ${userId}`
        return endOthers(tx as unknown as SQL, userId, keepFamily, now)
      })
    },
    async revokedSince(from) {
      const rows: Raw[] = await sql`SELECT family_id, max(revoked_at) AS revoked_at FROM refresh_tokens WHERE revoked_at >= ${from} GROUP BY family_id`
      return rows.map((r) => ({ family_id: r.family_id as string, revoked_at: Number(r.revoked_at) }))
    },
    async purgeBefore(cutoff) {
      const rows = await sql`DELETE FROM refresh_tokens WHERE expires_at < ${cutoff} OR revoked_at < ${cutoff}`
      return rows.count as number
    },
  }
}
