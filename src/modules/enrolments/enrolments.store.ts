import type { Database } from 'bun:sqlite'

export interface EnrolmentRow {
  id: string
  client_id: string
  created_by: string
  created_at: number
  expires_at: number
  used_at: number | null
  device_id: string | null
}

export type NewEnrolment = Omit<EnrolmentRow, 'used_at' | 'device_id'> & { token_hash: string }

/**
 * The enrolments table, on either engine (this file: SQLite; enrolments.store.pg.ts: PostgreSQL).
 * `byHash` serves the machine redeeming a token, which has no client yet: the token is its credential.
 */
export interface EnrolmentsStore {
  insert(r: NewEnrolment): Promise<void>
  byHash(hash: string): Promise<EnrolmentRow | null>
  /** spends an unused token; false when it was already spent (nothing changes then) */
  markUsed(id: string, at: number, deviceId: string): Promise<boolean>
  /** drops rows that expired before `before` (used or not): they can no longer enrol anything */
  prune(before: number): Promise<void>
}

/**
 * SQLite's statements, synchronous. Besides backing `createEnrolmentsStore`, they serve the
 * redemption, which checks and spends a token, registers the device and makes its key in one
 * synchronous SQLite transaction spanning the devices and API keys domains.
 */
export function sqliteEnrolments(sqlite: Database) {
  const insert = sqlite.query<never, [string, string, string, string, number, number]>(
    'INSERT INTO enrolments (id, client_id, token_hash, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const byHash = sqlite.query<EnrolmentRow, [string]>(
    'SELECT id, client_id, created_by, created_at, expires_at, used_at, device_id FROM enrolments WHERE token_hash = ?',
  )
  const markUsed = sqlite.query<never, [number, string, string]>('UPDATE enrolments SET used_at = ?, device_id = ? WHERE id = ? AND used_at IS NULL')
  const prune = sqlite.query<never, [number]>('DELETE FROM enrolments WHERE expires_at < ?')
  return {
    insert: (r: NewEnrolment) => void insert.run(r.id, r.client_id, r.token_hash, r.created_by, r.created_at, r.expires_at),
    byHash: (hash: string) => byHash.get(hash),
    markUsed: (id: string, at: number, deviceId: string) => markUsed.run(at, deviceId, id).changes > 0,
    prune: (before: number) => void prune.run(before),
    /** one IMMEDIATE transaction: two redemptions of one token cannot both see it unused */
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
  }
}

export type SqliteEnrolments = ReturnType<typeof sqliteEnrolments>

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createEnrolmentsStore(enrolments: SqliteEnrolments): EnrolmentsStore {
  return {
    insert: async (r) => enrolments.insert(r),
    byHash: async (hash) => enrolments.byHash(hash),
    markUsed: async (id, at, deviceId) => enrolments.markUsed(id, at, deviceId),
    prune: async (before) => enrolments.prune(before),
  }
}
