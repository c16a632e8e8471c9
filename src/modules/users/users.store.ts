import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
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

/** A new account's row; its home client is set in the same transaction (users.accounts.store.ts). */
export type NewUser = Omit<UserRow, 'client_id'> & { now: number }

/**
 * The `users` table (accounts), on either engine (this file: SQLite; users.store.pg.ts:
 * PostgreSQL). Emails are stored lower-cased; the unique index on them decides between two
 * registrations of one address. An account is made with its client in one call of the accounts
 * store (users.accounts.store.ts), not here.
 */
export interface UsersStore {
  byEmail(email: string): Promise<UserRow | null>
  byId(id: string): Promise<UserRow | null>
  /** the stored instance role (primary-key lookup), null for an unknown account */
  roleOf(id: string): Promise<string | null>
  count(): Promise<number>
  countOperators(): Promise<number>
  /** operators (role admin) whose home client this is, oldest first */
  operatorsHomedAt(clientId: string): Promise<string[]>
  /** every operator, oldest first */
  operators(): Promise<{ email: string; id: string }[]>
  /** the clients that are an operator's own: an operator's home client while they are an active member of it, in id order */
  operatorClients(): Promise<string[]>
  /** false when there is no such account */
  setRole(userId: string, role: SystemRole, now: number): Promise<boolean>
}

const COLUMNS = 'id, email, password_hash, first_name, last_name, client_id, role'

/** reads the members table too: being an operator's own client needs the operator's active membership there */
export const OPERATOR_CLIENTS = `SELECT DISTINCT u.client_id FROM users u
  JOIN members m ON m.client_id = u.client_id AND m.user_id = u.id AND m.status = 'active'
  WHERE u.role = 'admin' AND u.client_id IS NOT NULL ORDER BY u.client_id`

/**
 * SQLite's statements, synchronous, one set per connection. Besides backing `createUsersStore`,
 * they serve the accounts store's SQLite transaction and the per-request role read of a hub on
 * SQLite (users.directory.ts), which answers without a turn of the event loop.
 */
export const sqliteUsers = perConnection((sqlite: Database) => {
  const byEmail = sqlite.query<UserRow, [string]>(`SELECT ${COLUMNS} FROM users WHERE email = ?`)
  const byId = sqlite.query<UserRow, [string]>(`SELECT ${COLUMNS} FROM users WHERE id = ?`)
  const roleOf = sqlite.query<{ role: string }, [string]>('SELECT role FROM users WHERE id = ?')
  const count = sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM users')
  const countOperators = sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM users WHERE role = 'admin'")
  const operatorsHomedAt = sqlite.query<{ id: string }, [string]>("SELECT id FROM users WHERE client_id = ? AND role = 'admin' ORDER BY created_at, id")
  const operators = sqlite.query<{ email: string; id: string }, []>("SELECT email, id FROM users WHERE role = 'admin' ORDER BY created_at, id")
  const operatorClients = sqlite.query<{ client_id: string }, []>(OPERATOR_CLIENTS)
  const insert = sqlite.query<never, [string, string, string, string | null, string | null, string, number, number]>(
    'INSERT INTO users (id, email, password_hash, first_name, last_name, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const setHome = sqlite.query<never, [string, string]>('UPDATE users SET client_id = ? WHERE id = ?')
  const setRole = sqlite.query<never, [string, number, string]>('UPDATE users SET role = ?, updated_at = ? WHERE id = ?')
  return {
    byEmail: (email: string): UserRow | null => byEmail.get(email),
    byId: (id: string): UserRow | null => byId.get(id),
    roleOf: (id: string): string | null => roleOf.get(id)?.role ?? null,
    count: () => count.get()!.n,
    countOperators: () => countOperators.get()!.n,
    operatorsHomedAt: (clientId: string) => operatorsHomedAt.all(clientId).map((r) => r.id),
    operators: () => operators.all(),
    operatorClients: () => operatorClients.all().map((r) => r.client_id),
    insert: (u: NewUser) => void insert.run(u.id, u.email, u.password_hash, u.first_name, u.last_name, u.role, u.now, u.now),
    setHomeClient: (userId: string, clientId: string) => void setHome.run(clientId, userId),
    setRole: (userId: string, role: SystemRole, now: number) => setRole.run(role, now, userId).changes > 0,
  }
})

export type SqliteUsers = ReturnType<typeof sqliteUsers>

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createUsersStore(users: SqliteUsers): UsersStore {
  return {
    byEmail: async (email) => users.byEmail(email),
    byId: async (id) => users.byId(id),
    roleOf: async (id) => users.roleOf(id),
    count: async () => users.count(),
    countOperators: async () => users.countOperators(),
    operatorsHomedAt: async (clientId) => users.operatorsHomedAt(clientId),
    operators: async () => users.operators(),
    operatorClients: async () => users.operatorClients(),
    setRole: async (userId, role, now) => users.setRole(userId, role, now),
  }
}
