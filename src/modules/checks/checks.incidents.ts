import type { Database } from 'bun:sqlite'

export interface IncidentRow {
  id: string
  client_id: string
  check_id: string
  started_at: number
  ended_at: number | null
  cause: string | null
}

export const INCIDENT_COLUMNS = 'id, client_id, check_id, started_at, ended_at, cause'

/**
 * Down periods, on either engine (this file: SQLite; checks.incidents.pg.ts: PostgreSQL): one
 * opens when a check's combined state becomes down and closes when it leaves down, both inside
 * the checks store's recording of an attempt. These are the reads, each filtered by client.
 */
export interface IncidentsStore {
  /** latest start first, ties by id descending */
  page(clientId: string, checkId: string, limit: number, offset: number): Promise<{ rows: IncidentRow[]; total: number }>
  /** the ones that were open at some time since `sinceMs`, latest start first */
  since(clientId: string, checkId: string, sinceMs: number): Promise<IncidentRow[]>
  /** ended ones that ended before `before` */
  prune(before: number): Promise<number>
}

export function createIncidentsStore(sqlite: Database): IncidentsStore {
  const page = sqlite.query<IncidentRow, [string, string, number, number]>(
    `SELECT ${INCIDENT_COLUMNS} FROM check_incidents WHERE client_id = ? AND check_id = ? ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`,
  )
  const count = sqlite.query<{ n: number }, [string, string]>('SELECT count(*) AS n FROM check_incidents WHERE client_id = ? AND check_id = ?')
  const since = sqlite.query<IncidentRow, [string, string, number]>(
    `SELECT ${INCIDENT_COLUMNS} FROM check_incidents WHERE client_id = ? AND check_id = ? AND (ended_at IS NULL OR ended_at >= ?)
     ORDER BY started_at DESC, id DESC`,
  )
  const prune = sqlite.query<never, [number]>('DELETE FROM check_incidents WHERE ended_at IS NOT NULL AND ended_at < ?')
  return {
    page: async (clientId, checkId, limit, offset) => ({ rows: page.all(clientId, checkId, limit, offset), total: count.get(clientId, checkId)!.n }),
    since: async (clientId, checkId, sinceMs) => since.all(clientId, checkId, sinceMs),
    prune: async (before) => prune.run(before).changes,
  }
}
