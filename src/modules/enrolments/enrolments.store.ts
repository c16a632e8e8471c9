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

/** The enrolments table. */
export function createEnrolmentsStore(sqlite: Database) {
  const insert = sqlite.query<never, [string, string, string, string, number, number]>(
    'INSERT INTO enrolments (id, client_id, token_hash, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const byHash = sqlite.query<EnrolmentRow, [string]>(
    'SELECT id, client_id, created_by, created_at, expires_at, used_at, device_id FROM enrolments WHERE token_hash = ?',
  )
  const markUsed = sqlite.query<never, [number, string, string]>('UPDATE enrolments SET used_at = ?, device_id = ? WHERE id = ? AND used_at IS NULL')
  const prune = sqlite.query<never, [number]>('DELETE FROM enrolments WHERE expires_at < ?')
  return {
    insert: (r: Omit<EnrolmentRow, 'used_at' | 'device_id'> & { token_hash: string }) =>
      void insert.run(r.id, r.client_id, r.token_hash, r.created_by, r.created_at, r.expires_at),
    byHash: (hash: string) => byHash.get(hash),
    markUsed: (id: string, at: number, deviceId: string) => void markUsed.run(at, deviceId, id),
    /** drops rows that expired before `before` (used or not): they can no longer enrol anything */
    prune: (before: number) => void prune.run(before),
    /** one IMMEDIATE transaction: two redemptions of one token cannot both see it unused */
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
  }
}

export type EnrolmentsStore = ReturnType<typeof createEnrolmentsStore>
