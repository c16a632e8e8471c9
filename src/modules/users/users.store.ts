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

export const userByEmail = (sqlite: Database, email: string) =>
  sqlite.query<UserRow, [string]>(`SELECT ${COLUMNS} FROM users WHERE email = ?`).get(email)

export const userById = (sqlite: Database, id: string) =>
  sqlite.query<UserRow, [string]>(`SELECT ${COLUMNS} FROM users WHERE id = ?`).get(id)

export const countUsers = (sqlite: Database) => sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM users').get()!.n

export function insertUser(sqlite: Database, u: Omit<UserRow, 'client_id'> & { now: number }) {
  sqlite
    .query(`INSERT INTO users (id, email, password_hash, first_name, last_name, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(u.id, u.email, u.password_hash, u.first_name, u.last_name, u.role, u.now, u.now)
}

export const setHomeClient = (sqlite: Database, userId: string, clientId: string) =>
  sqlite.query('UPDATE users SET client_id = ? WHERE id = ?').run(clientId, userId)

export const setRole = (sqlite: Database, userId: string, role: SystemRole, now: number) =>
  sqlite.query('UPDATE users SET role = ?, updated_at = ? WHERE id = ?').run(role, now, userId)

export const setPasswordHash = (sqlite: Database, userId: string, hash: string, now: number) =>
  sqlite.query('UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?').run(hash, now, userId)
