import type { Database } from 'bun:sqlite'
import type { SystemRole } from '../../http/principal'

export interface UserRow {
  id: string
  email: string
  password_hash: string
  first_name: string | null
  last_name: string | null
  client_id: string | null
  role: SystemRole
}

const COLUMNS = 'id, email, password_hash, first_name, last_name, client_id, role'

/** The `users` table. */
export function createUsersStore(sqlite: Database) {
  const byEmail = sqlite.query<UserRow, [string]>(`SELECT ${COLUMNS} FROM users WHERE email = ?`)
  const byId = sqlite.query<UserRow, [string]>(`SELECT ${COLUMNS} FROM users WHERE id = ?`)
  const roleOf = sqlite.query<{ role: string }, [string]>('SELECT role FROM users WHERE id = ?')
  const count = sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM users')
  const countOperators = sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM users WHERE role = 'admin'")
  const operatorsHomedAt = sqlite.query<{ id: string }, [string]>("SELECT id FROM users WHERE client_id = ? AND role = 'admin'")
  const operators = sqlite.query<{ email: string; id: string }, []>("SELECT email, id FROM users WHERE role = 'admin' ORDER BY created_at")
  return {
    byEmail: (email: string) => byEmail.get(email),
    byId: (id: string) => byId.get(id),
    /** the stored instance role, read per request (primary-key lookup) */
    roleOf: (id: string) => roleOf.get(id)?.role ?? null,
    count: () => count.get()!.n,
    countOperators: () => countOperators.get()!.n,
    /** operators whose home client this is */
    operatorsHomedAt: (clientId: string) => operatorsHomedAt.all(clientId).map((r) => r.id),
    operators: () => operators.all(),
    insert(u: Omit<UserRow, 'client_id'> & { now: number }) {
      sqlite
        .query('INSERT INTO users (id, email, password_hash, first_name, last_name, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(u.id, u.email, u.password_hash, u.first_name, u.last_name, u.role, u.now, u.now)
    },
    setHomeClient: (userId: string, clientId: string) => void sqlite.query('UPDATE users SET client_id = ? WHERE id = ?').run(clientId, userId),
    setRole: (userId: string, role: SystemRole, now: number) =>
      void sqlite.query('UPDATE users SET role = ?, updated_at = ? WHERE id = ?').run(role, now, userId),
    /** runs fn in one transaction; synchronous, so no await inside */
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn)(),
  }
}

export type UsersStore = ReturnType<typeof createUsersStore>
