/** The checks and check_places rows as both engines' stores hand them back (integers as numbers, 0/1 flags as on SQLite). */

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
