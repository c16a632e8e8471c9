import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { newId } from '../../lib/ids'
import { type Attempt, type CheckChange, advance, resultRowOf } from './checks.attempt'
import type { CheckChanges, CheckRow, PlaceRow } from './checks.store.rows'
import { createResultsSqlite } from './checks.summaries'

/** What a change does beside the columns: its places start afresh, its open incident ends. */
export interface ChangeEffects {
  /** the places' state machines are dropped (a resumed check starts pending) */
  dropPlaces?: boolean
  /** the open incident, if any, ends at this time */
  closeIncidentAt?: number
}

/**
 * The checks and check_places tables, and the recording of an attempt, on either engine (this
 * file: SQLite; checks.store.pg.ts: PostgreSQL). Every tenant read filters by client_id; the
 * scheduler, the agents' results and the heartbeat calls find a check by id or token, which is
 * tied to its client already. An attempt is recorded in one call, one transaction: its raw row,
 * the summaries, the place's and the check's state, an incident opened or closed.
 */
export interface ChecksStore {
  /** oldest first, ties by id */
  list(clientId: string): Promise<CheckRow[]>
  byId(clientId: string, id: string): Promise<CheckRow | null>
  /** for the scheduler and agent results, which carry an id already tied to its client */
  anyById(id: string): Promise<CheckRow | null>
  byTokenHash(hash: string): Promise<CheckRow | null>
  /** every client's checks, oldest first */
  all(): Promise<CheckRow[]>
  count(clientId: string): Promise<number>
  /** the client's checks down now (paused ones are not) */
  downCount(clientId: string): Promise<number>
  /** a check's places, in place order */
  places(seq: number): Promise<PlaceRow[]>
  /** inserts the check with the next free seq while its client has fewer than `max`; null when it has that many */
  create(row: Omit<CheckRow, 'seq'>, max: number): Promise<CheckRow | null>
  /** the check as changed; null for an unknown id or another client's check */
  update(clientId: string, id: string, changes: CheckChanges, effects?: ChangeEffects): Promise<CheckRow | null>
  /** the check with its places, results and summaries (its incidents go by foreign key); false when there was none */
  remove(clientId: string, id: string): Promise<boolean>
  /**
   * Stores one attempt of a check at a place and moves its state machines, in one transaction.
   * `active`: the places the check runs at now (their states combine). Null for an unknown
   * check and for a replay (the same check, place and time stored before).
   */
  record(checkId: string, place: number, attempt: Attempt, active: number[]): Promise<CheckChange | null>
}

export const CHECK_COLUMNS =
  'id, seq, client_id, name, kind, settings, interval_s, timeout_ms, down_after, up_after, run_on_hub, device_ids, depends_on_device_id, paused, hb_token_hash, hb_token_hint, state, state_since, last_checked_at, last_response_ms, last_status_code, last_error, cert_expires_at, created_at, updated_at'
export const CHECK_NAMES = CHECK_COLUMNS.split(', ')
export const EDITABLE = new Set(CHECK_NAMES.filter((c) => !['id', 'seq', 'client_id', 'created_at'].includes(c)))
export const PLACE_COLUMNS = 'check_seq, place, state, fails, successes, last_ts, last_ok, last_response_ms, last_error'

/** the columns a change sets, in a fixed order */
export const changedColumns = (changes: CheckChanges) => Object.keys(changes).filter((c) => EDITABLE.has(c)) as (keyof CheckChanges)[]

function build(sqlite: Database) {
  const insert = sqlite.query(`INSERT INTO checks (${CHECK_COLUMNS}) VALUES (${CHECK_NAMES.map(() => '?').join(', ')})`)
  const nextSeq = sqlite.query<{ n: number }, []>('SELECT coalesce(max(seq), 0) + 1 AS n FROM checks')
  const list = sqlite.query<CheckRow, [string]>(`SELECT ${CHECK_COLUMNS} FROM checks WHERE client_id = ? ORDER BY created_at, id`)
  const byId = sqlite.query<CheckRow, [string, string]>(`SELECT ${CHECK_COLUMNS} FROM checks WHERE client_id = ? AND id = ?`)
  const anyById = sqlite.query<CheckRow, [string]>(`SELECT ${CHECK_COLUMNS} FROM checks WHERE id = ?`)
  const byToken = sqlite.query<CheckRow, [string]>(`SELECT ${CHECK_COLUMNS} FROM checks WHERE hb_token_hash = ?`)
  const all = sqlite.query<CheckRow, []>(`SELECT ${CHECK_COLUMNS} FROM checks ORDER BY created_at, id`)
  const remove = sqlite.query<{ seq: number }, [string, string]>('DELETE FROM checks WHERE client_id = ? AND id = ? RETURNING seq')
  const count = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM checks WHERE client_id = ?')
  const downCount = sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM checks WHERE client_id = ? AND paused = 0 AND state = 'down'")
  const places = sqlite.query<PlaceRow, [number]>(`SELECT ${PLACE_COLUMNS} FROM check_places WHERE check_seq = ? ORDER BY place`)
  const upsertPlace = sqlite.query(
    `INSERT INTO check_places (${PLACE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (check_seq, place) DO UPDATE SET state = excluded.state, fails = excluded.fails, successes = excluded.successes,
       last_ts = excluded.last_ts, last_ok = excluded.last_ok, last_response_ms = excluded.last_response_ms, last_error = excluded.last_error`,
  )
  const dropPlaces = sqlite.query<never, [number]>('DELETE FROM check_places WHERE check_seq = ?')
  const openIncident = sqlite.query<{ id: string }, [string]>('SELECT id FROM check_incidents WHERE check_id = ? AND ended_at IS NULL')
  const insertIncident = sqlite.query('INSERT INTO check_incidents (id, client_id, check_id, started_at, ended_at, cause) VALUES (?, ?, ?, ?, NULL, ?)')
  const closeIncident = sqlite.query<never, [number, string]>('UPDATE check_incidents SET ended_at = ? WHERE check_id = ? AND ended_at IS NULL')
  const results = createResultsSqlite(sqlite)

  const update = (clientId: string, id: string, changes: CheckChanges) => {
    const cols = changedColumns(changes)
    if (!cols.length) return
    sqlite
      .query(`UPDATE checks SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE client_id = ? AND id = ?`)
      .run(...cols.map((c) => changes[c] ?? null), clientId, id)
  }
  const tx = <T>(fn: () => T): T => sqlite.transaction(fn).immediate()

  return {
    results,
    list: (clientId: string) => list.all(clientId),
    byId: (clientId: string, id: string) => byId.get(clientId, id),
    anyById: (id: string) => anyById.get(id),
    byTokenHash: (hash: string) => byToken.get(hash),
    all: () => all.all(),
    count: (clientId: string) => count.get(clientId)!.n,
    downCount: (clientId: string) => downCount.get(clientId)!.n,
    places: (seq: number) => places.all(seq),
    create: (row: Omit<CheckRow, 'seq'>, max: number): CheckRow | null =>
      tx(() => {
        if (count.get(row.client_id)!.n >= max) return null
        const full: CheckRow = { ...row, seq: nextSeq.get()!.n }
        insert.run(...CHECK_NAMES.map((c) => full[c as keyof CheckRow]))
        return full
      }),
    update: (clientId: string, id: string, changes: CheckChanges, effects: ChangeEffects = {}): CheckRow | null =>
      tx(() => {
        const row = byId.get(clientId, id)
        if (!row) return null
        update(clientId, id, changes)
        if (effects.dropPlaces) dropPlaces.run(row.seq)
        if (effects.closeIncidentAt !== undefined) closeIncident.run(effects.closeIncidentAt, id)
        return byId.get(clientId, id)
      }),
    remove: (clientId: string, id: string): boolean =>
      tx(() => {
        const seq = remove.get(clientId, id)?.seq
        if (seq === undefined) return false
        results.drop(seq)
        dropPlaces.run(seq)
        return true
      }),
    record: (checkId: string, place: number, attempt: Attempt, active: number[]): CheckChange | null =>
      tx(() => {
        const check = anyById.get(checkId)
        if (!check) return null
        if (!results.record(resultRowOf(check.seq, place, attempt))) return null
        const step = advance(check, places.all(check.seq), place, attempt, active)
        if ('late' in step) return { check, place, attempt, from: step.from, to: step.from }
        const p = step.place
        upsertPlace.run(p.check_seq, p.place, p.state, p.fails, p.successes, p.last_ts, p.last_ok, p.last_response_ms, p.last_error)
        update(check.client_id, check.id, step.changes)
        if (step.incident === 'open' && !openIncident.get(check.id)) insertIncident.run(newId('inc'), check.client_id, check.id, attempt.ts, attempt.error)
        if (step.incident === 'close') closeIncident.run(attempt.ts, check.id)
        return { check: anyById.get(check.id)!, place, attempt, from: step.from, to: step.to }
      }),
  }
}

/**
 * SQLite's statements, synchronous, one set per connection. Besides backing createChecksStore,
 * they serve what reads checks synchronously on a SQLite hub: the checks' series in GET /metrics.
 */
export const sqliteChecks = perConnection(build)
export type SqliteChecks = ReturnType<typeof build>

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createChecksStore(sqlite: Database): ChecksStore {
  const s = sqliteChecks(sqlite)
  return {
    list: async (clientId) => s.list(clientId),
    byId: async (clientId, id) => s.byId(clientId, id),
    anyById: async (id) => s.anyById(id),
    byTokenHash: async (hash) => s.byTokenHash(hash),
    all: async () => s.all(),
    count: async (clientId) => s.count(clientId),
    downCount: async (clientId) => s.downCount(clientId),
    places: async (seq) => s.places(seq),
    create: async (row, max) => s.create(row, max),
    update: async (clientId, id, changes, effects) => s.update(clientId, id, changes, effects),
    remove: async (clientId, id) => s.remove(clientId, id),
    record: async (checkId, place, attempt, active) => s.record(checkId, place, attempt, active),
  }
}
