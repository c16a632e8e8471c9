import type { SQL } from 'bun'
import type { StatusCheckRow, StatusReads } from './checks.status-reads'

/**
 * A status page's reads of the checks' tables on PostgreSQL: the same four queries as on SQLite
 * for all the checks of the page (the ids go in as one array parameter), answered as rows of
 * values. The integers come back as float8, which the driver hands over as numbers: no string
 * per day row to convert.
 */
export function createStatusReadsPg(sql: SQL): StatusReads {
  return {
    async checks(clientId, ids) {
      return (await sql`SELECT id, seq::float8, name, kind, paused::float8, state, last_checked_at::float8, last_response_ms FROM checks
        WHERE client_id = ${clientId} AND id = ANY(${ids})`.values()) as StatusCheckRow[]
    },
    async days(seqs, fromDay, toDay) {
      return (await sql`SELECT check_seq::float8, day::float8, total::float8, ok::float8 FROM check_days
        WHERE check_seq = ANY(${seqs}::bigint[]) AND day >= ${fromDay} AND day < ${toDay}`.values()) as [number, number, number, number][]
    },
    async hours(seqs, fromHour, toHour) {
      return (await sql`SELECT check_seq::float8, hour::float8, sum_ms::float8, n_ms::float8 FROM check_hours
        WHERE check_seq = ANY(${seqs}::bigint[]) AND hour >= ${fromHour} AND hour < ${toHour}`.values()) as [number, number, number, number][]
    },
    async incidents(clientId, ids, sinceMs) {
      return (await sql`SELECT check_id, started_at::float8, ended_at::float8 FROM check_incidents
        WHERE client_id = ${clientId} AND check_id = ANY(${ids}) AND (ended_at IS NULL OR ended_at >= ${sinceMs})
        ORDER BY started_at DESC, id COLLATE "C" DESC`.values()) as [string, number, number | null][]
    },
  }
}
