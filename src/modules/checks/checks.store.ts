import type { Database } from 'bun:sqlite'

export interface CheckRow {
  id: string
  seq: number
  client_id: string
  name: string
  kind: string
  settings: string
  interval_s: number
  timeout_ms: number
  down_after: number
  up_after: number
  run_on_hub: number
  device_ids: string
  depends_on_device_id: string | null
  paused: number
  hb_token_hash: string | null
  hb_token_hint: string | null
  state: string
  state_since: number | null
  last_checked_at: number | null
  last_response_ms: number | null
  last_status_code: number | null
  last_error: string | null
  cert_expires_at: number | null
  created_at: number
  updated_at: number
}

export interface PlaceRow {
  check_seq: number
  place: number
  state: string
  fails: number
  successes: number
  last_ts: number | null
  last_ok: number | null
  last_response_ms: number | null
  last_error: string | null
}

export type CheckChanges = Partial<Omit<CheckRow, 'id' | 'seq' | 'client_id' | 'created_at'>>

const COLUMNS =
  'id, seq, client_id, name, kind, settings, interval_s, timeout_ms, down_after, up_after, run_on_hub, device_ids, depends_on_device_id, paused, hb_token_hash, hb_token_hint, state, state_since, last_checked_at, last_response_ms, last_status_code, last_error, cert_expires_at, created_at, updated_at'
const NAMES = COLUMNS.split(', ')
const EDITABLE = new Set(NAMES.filter((c) => !['id', 'seq', 'client_id', 'created_at'].includes(c)))
const PLACE_COLUMNS = 'check_seq, place, state, fails, successes, last_ts, last_ok, last_response_ms, last_error'

/** The checks and check_places tables. Every tenant read filters by client_id. */
export function createChecksStore(sqlite: Database) {
  const insert = sqlite.query(`INSERT INTO checks (${COLUMNS}) VALUES (${NAMES.map(() => '?').join(', ')})`)
  const nextSeq = sqlite.query<{ n: number }, []>('SELECT coalesce(max(seq), 0) + 1 AS n FROM checks')
  const list = sqlite.query<CheckRow, [string]>(`SELECT ${COLUMNS} FROM checks WHERE client_id = ? ORDER BY created_at, id`)
  const byId = sqlite.query<CheckRow, [string, string]>(`SELECT ${COLUMNS} FROM checks WHERE client_id = ? AND id = ?`)
  const anyById = sqlite.query<CheckRow, [string]>(`SELECT ${COLUMNS} FROM checks WHERE id = ?`)
  const byToken = sqlite.query<CheckRow, [string]>(`SELECT ${COLUMNS} FROM checks WHERE hb_token_hash = ?`)
  const all = sqlite.query<CheckRow, []>(`SELECT ${COLUMNS} FROM checks`)
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
  const dropPlace = sqlite.query<never, [number, number]>('DELETE FROM check_places WHERE check_seq = ? AND place = ?')

  return {
    nextSeq: () => nextSeq.get()!.n,
    insert(row: CheckRow) {
      insert.run(...NAMES.map((c) => row[c as keyof CheckRow]))
    },
    list: (clientId: string) => list.all(clientId),
    byId: (clientId: string, id: string) => byId.get(clientId, id),
    /** for the scheduler and agent results, which carry an id already tied to its client */
    anyById: (id: string) => anyById.get(id),
    byTokenHash: (hash: string) => byToken.get(hash),
    all: () => all.all(),
    update(clientId: string, id: string, changes: CheckChanges) {
      const cols = Object.keys(changes).filter((c) => EDITABLE.has(c))
      if (!cols.length) return
      sqlite
        .query(`UPDATE checks SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE client_id = ? AND id = ?`)
        .run(...cols.map((c) => changes[c as keyof CheckChanges] ?? null), clientId, id)
    },
    /** the seq of the removed check, or null when there was none */
    remove(clientId: string, id: string): number | null {
      const seq = remove.get(clientId, id)?.seq ?? null
      if (seq !== null) dropPlaces.run(seq)
      return seq
    },
    count: (clientId: string) => count.get(clientId)!.n,
    downCount: (clientId: string) => downCount.get(clientId)!.n,
    places: (seq: number) => places.all(seq),
    savePlace(p: PlaceRow) {
      upsertPlace.run(p.check_seq, p.place, p.state, p.fails, p.successes, p.last_ts, p.last_ok, p.last_response_ms, p.last_error)
    },
    dropPlace: (seq: number, place: number) => void dropPlace.run(seq, place),
  }
}

export type ChecksStore = ReturnType<typeof createChecksStore>
