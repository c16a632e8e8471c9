import type { SQL } from 'bun'
import type { Raw } from '../../db/pg/rows'
import type { SystemRole } from '../../http/principal'
import type { NewUser, UserRow, UsersStore } from './users.store'

const row = (r: Raw): UserRow => ({
  id: r.id as string,
  email: r.email as string,
  password_hash: r.password_hash as string,
  first_name: (r.first_name as string | null) ?? null,
  last_name: (r.last_name as string | null) ?? null,
  client_id: (r.client_id as string | null) ?? null,
  role: r.role as SystemRole,
})

/** A new account's row, inside the accounts store's transaction (users.accounts.store.pg.ts). */
export const insertUser = (tx: SQL, u: NewUser) =>
  tx`INSERT INTO users (id, email, password_hash, first_name, last_name, role, created_at, updated_at)
    VALUES (${u.id}, ${u.email}, ${u.password_hash}, ${u.first_name}, ${u.last_name}, ${u.role}, ${u.now}, ${u.now})`

export const setHomeClient = (tx: SQL, userId: string, clientId: string) => tx`UPDATE users SET client_id = ${clientId} WHERE id = ${userId}`

export async function countUsers(tx: SQL): Promise<number> {
  const [r]: { n: number }[] = await tx`SELECT count(*)::int AS n FROM users`
  return r!.n
}

/** The users table on PostgreSQL: the same answers as the SQLite store (users.store.contract.test.ts). */
export function createUsersStorePg(sql: SQL): UsersStore {
  return {
    async byEmail(email) {
      const [r]: Raw[] = await sql`SELECT id, email, password_hash, first_name, last_name, client_id, role FROM users WHERE email = ${email}`
      return r ? row(r) : null
    },
    async byId(id) {
      const [r]: Raw[] = await sql`SELECT id, email, password_hash, first_name, last_name, client_id, role FROM users WHERE id = ${id}`
      return r ? row(r) : null
    },
    async roleOf(id) {
      const [r]: { role: string }[] = await sql`SELECT role FROM users WHERE id = ${id}`
      return r?.role ?? null
    },
    count: () => countUsers(sql),
    async countOperators() {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM users WHERE role = 'admin'`
      return r!.n
    },
    async operatorsHomedAt(clientId) {
      const rows: { id: string }[] = await sql`SELECT id FROM users WHERE client_id = ${clientId} AND role = 'admin' ORDER BY created_at, id COLLATE "C"`
      return rows.map((r) => r.id)
    },
    async operators() {
      const rows: { email: string; id: string }[] = await sql`SELECT email, id FROM users WHERE role = 'admin' ORDER BY created_at, id COLLATE "C"`
      return rows.map((r) => ({ email: r.email, id: r.id }))
    },
    async operatorClients() {
      // as users.store.ts' OPERATOR_CLIENTS, ids ordered by their bytes as SQLite orders them
      const rows: { client_id: string }[] = await sql`SELECT DISTINCT u.client_id COLLATE "C" AS client_id FROM users u
        JOIN members m ON m.client_id = u.client_id AND m.user_id = u.id AND m.status = 'active'
        WHERE u.role = 'admin' AND u.client_id IS NOT NULL ORDER BY 1`
      return rows.map((r) => r.client_id)
    },
    async setRole(userId, role, now) {
      const rows = await sql`UPDATE users SET role = ${role}, updated_at = ${now} WHERE id = ${userId}`
      return (rows.count as number) > 0
    },
  }
}
