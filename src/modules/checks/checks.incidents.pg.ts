import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import { INCIDENT_COLUMNS, type IncidentRow, type IncidentsStore } from './checks.incidents'

const row = (r: Raw): IncidentRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  check_id: r.check_id as string,
  started_at: num(r.started_at),
  ended_at: numOrNull(r.ended_at),
  cause: (r.cause as string | null) ?? null,
})

/** The incidents' reads on PostgreSQL: the same answers as on SQLite (checks.store.contract.test.ts). */
export function createIncidentsStorePg(sql: SQL): IncidentsStore {
  return {
    async page(clientId, checkId, limit, offset) {
      const rows: Raw[] = await sql.unsafe(
        `SELECT ${INCIDENT_COLUMNS} FROM check_incidents WHERE client_id = $1 AND check_id = $2 ORDER BY started_at DESC, id COLLATE "C" DESC LIMIT $3 OFFSET $4`,
        [clientId, checkId, limit, offset],
      )
      const [c]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM check_incidents WHERE client_id = ${clientId} AND check_id = ${checkId}`
      return { rows: rows.map(row), total: c!.n }
    },
    async since(clientId, checkId, sinceMs) {
      const rows: Raw[] = await sql.unsafe(
        `SELECT ${INCIDENT_COLUMNS} FROM check_incidents WHERE client_id = $1 AND check_id = $2 AND (ended_at IS NULL OR ended_at >= $3)
         ORDER BY started_at DESC, id COLLATE "C" DESC`,
        [clientId, checkId, sinceMs],
      )
      return rows.map(row)
    },
    async prune(before) {
      return (await sql`DELETE FROM check_incidents WHERE ended_at IS NOT NULL AND ended_at < ${before}`).count
    },
  }
}
