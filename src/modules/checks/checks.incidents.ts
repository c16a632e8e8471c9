import type { Database } from 'bun:sqlite'
import { newId } from '../../lib/ids'

export interface IncidentRow {
  id: string
  client_id: string
  check_id: string
  started_at: number
  ended_at: number | null
  cause: string | null
}

const COLS = 'id, client_id, check_id, started_at, ended_at, cause'

/** Down periods: one opens when a check's combined state becomes down and closes when it leaves down. */
export function createIncidentsStore(sqlite: Database) {
  const open = sqlite.query<IncidentRow, [string]>(`SELECT ${COLS} FROM check_incidents WHERE check_id = ? AND ended_at IS NULL`)
  const insert = sqlite.query(`INSERT INTO check_incidents (${COLS}) VALUES (?, ?, ?, ?, NULL, ?)`)
  const close = sqlite.query<never, [number, string]>('UPDATE check_incidents SET ended_at = ? WHERE check_id = ? AND ended_at IS NULL')
  const page = sqlite.query<IncidentRow, [string, string, number, number]>(
    `SELECT ${COLS} FROM check_incidents WHERE client_id = ? AND check_id = ? ORDER BY started_at DESC LIMIT ? OFFSET ?`,
  )
  const count = sqlite.query<{ n: number }, [string, string]>('SELECT count(*) AS n FROM check_incidents WHERE client_id = ? AND check_id = ?')
  const since = sqlite.query<IncidentRow, [string, string, number]>(
    `SELECT ${COLS} FROM check_incidents WHERE client_id = ? AND check_id = ? AND (ended_at IS NULL OR ended_at >= ?) ORDER BY started_at DESC`,
  )
  const prune = sqlite.query<never, [number]>('DELETE FROM check_incidents WHERE ended_at IS NOT NULL AND ended_at < ?')

  return {
    open(clientId: string, checkId: string, at: number, cause: string | null) {
      if (open.get(checkId)) return
      insert.run(newId('inc'), clientId, checkId, at, cause)
    },
    close: (checkId: string, at: number) => void close.run(at, checkId),
    page: (clientId: string, checkId: string, limit: number, offset: number) => ({
      rows: page.all(clientId, checkId, limit, offset),
      total: count.get(clientId, checkId)!.n,
    }),
    /** the ones that were open at some time since `sinceMs`, newest first */
    since: (clientId: string, checkId: string, sinceMs: number) => since.all(clientId, checkId, sinceMs),
    prune: (before: number) => void prune.run(before),
  }
}

export type IncidentsStore = ReturnType<typeof createIncidentsStore>
