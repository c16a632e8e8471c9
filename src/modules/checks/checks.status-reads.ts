import type { Database } from 'bun:sqlite'

/** A check as a public page shows it: its figures come from the summaries, keyed by `seq`. */
export type StatusCheckRow = [
  id: string,
  seq: number,
  name: string,
  kind: string,
  paused: number,
  state: string,
  last_checked_at: number | null,
  last_response_ms: number | null,
]

/**
 * The reads a status page makes of the checks' tables, each for all the checks of the page in
 * one prepared statement (the ids go in as one JSON array, so the statement never changes with
 * their number), answered as rows of values rather than objects: a page of 50 checks reads
 * 4,500 day rows on every build. Only the summaries (hours, days) and incidents are read, never
 * the raw attempts.
 */
export interface StatusReads {
  /** the client's checks among `ids` (another account's id is not answered), in no particular order */
  checks(clientId: string, ids: string[]): Promise<StatusCheckRow[]>
  /** [check_seq, day, total, ok] of the days from `fromDay` until before `toDay` */
  days(seqs: number[], fromDay: number, toDay: number): Promise<[number, number, number, number][]>
  /** [check_seq, hour, sum_ms, n_ms] of the hours from `fromHour` until before `toHour` */
  hours(seqs: number[], fromHour: number, toHour: number): Promise<[number, number, number, number][]>
  /** [check_id, started_at, ended_at] of the client's incidents open at some time since `sinceMs`, newest first */
  incidents(clientId: string, ids: string[], sinceMs: number): Promise<[string, number, number | null][]>
}

/** The reads on SQLite (checks.status-reads.pg.ts: PostgreSQL, the same answers). */
export function createStatusReads(sqlite: Database): StatusReads {
  const checks = sqlite.query<Record<string, never>, [string, string]>(
    `SELECT id, seq, name, kind, paused, state, last_checked_at, last_response_ms FROM checks
     WHERE client_id = ?1 AND id IN (SELECT value FROM json_each(?2))`,
  )
  const days = sqlite.query<Record<string, never>, [string, number, number]>(
    'SELECT check_seq, day, total, ok FROM check_days WHERE check_seq IN (SELECT value FROM json_each(?1)) AND day >= ?2 AND day < ?3',
  )
  const hours = sqlite.query<Record<string, never>, [string, number, number]>(
    'SELECT check_seq, hour, sum_ms, n_ms FROM check_hours WHERE check_seq IN (SELECT value FROM json_each(?1)) AND hour >= ?2 AND hour < ?3',
  )
  const incidents = sqlite.query<Record<string, never>, [string, string, number]>(
    `SELECT check_id, started_at, ended_at FROM check_incidents
     WHERE client_id = ?1 AND check_id IN (SELECT value FROM json_each(?2)) AND (ended_at IS NULL OR ended_at >= ?3)
     ORDER BY started_at DESC, id DESC`,
  )
  return {
    /** the client's checks among `ids` (another account's id is not answered), in no particular order */
    checks: async (clientId, ids) => checks.values(clientId, JSON.stringify(ids)) as unknown as StatusCheckRow[],
    /** [check_seq, day, total, ok] of the days from `fromDay` until before `toDay` */
    days: async (seqs, fromDay, toDay) => days.values(JSON.stringify(seqs), fromDay, toDay) as unknown as [number, number, number, number][],
    /** [check_seq, hour, sum_ms, n_ms] of the hours from `fromHour` until before `toHour` */
    hours: async (seqs, fromHour, toHour) => hours.values(JSON.stringify(seqs), fromHour, toHour) as unknown as [number, number, number, number][],
    /** [check_id, started_at, ended_at] of the client's incidents open at some time since `sinceMs`, newest first */
    incidents: async (clientId, ids, sinceMs) => incidents.values(clientId, JSON.stringify(ids), sinceMs) as unknown as [string, number, number | null][],
  }
}
