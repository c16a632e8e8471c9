import { combine, type CombinedState, nextPlace, type PlaceState } from './checks.state'
import type { CheckChanges, CheckRow, PlaceRow } from './checks.store.rows'
import type { ResultRow } from './checks.raw'

/*
 * One attempt of a check and what it does to the check's rows, pure: both engines' stores run
 * `advance` inside the transaction that records the attempt, so it stands below them.
 */

/** Place 0 is the hub; an agent's place is its device's seq. */
export const HUB_PLACE = 0

/** One attempt as stored: from the hub's scheduler, an agent's batch, or a heartbeat call. */
export interface Attempt {
  ts: number
  ok: boolean
  response_ms: number | null
  status_code: number | null
  error: string | null
  cert_expires_at: number | null
}

/** What changed when an attempt was recorded: the alert source and the live views hear it. */
export interface CheckChange {
  check: CheckRow
  place: number
  attempt: Attempt
  /** the combined state before and after */
  from: CombinedState
  to: CombinedState
}

const asPlaceState = (s: string): PlaceState => (s === 'up' || s === 'down' ? s : 'pending')

/** the raw row an attempt is stored as */
export const resultRowOf = (seq: number, place: number, attempt: Attempt): ResultRow => ({
  check_seq: seq,
  place,
  ts: attempt.ts,
  ok: attempt.ok ? 1 : 0,
  response_ms: attempt.response_ms === null ? null : Math.round(attempt.response_ms),
  status_code: attempt.status_code,
  error: attempt.ok ? null : attempt.error,
})

/** What an attempt does to a check, decided from the rows as stored (the store writes it). */
export type Step =
  | { late: true; from: CombinedState }
  | { place: PlaceRow; changes: CheckChanges; from: CombinedState; to: CombinedState; incident: 'open' | 'close' | null }

/**
 * The state machines moved by one fresh attempt, pure: the place's own state, the check's
 * combined state over the places it runs at (`active`), and an incident to open or close. An
 * attempt older than the place's latest moves no state (`late`): a late agent batch cannot undo
 * what newer results decided.
 */
export function advance(check: CheckRow, places: PlaceRow[], place: number, attempt: Attempt, active: number[]): Step {
  const prev: PlaceRow = places.find((p) => p.place === place) ?? {
    check_seq: check.seq,
    place,
    state: 'pending',
    fails: 0,
    successes: 0,
    last_ts: null,
    last_ok: null,
    last_response_ms: null,
    last_error: null,
  }
  const from = (check.state as CombinedState) ?? 'pending'
  if (prev.last_ts !== null && attempt.ts < prev.last_ts) return { late: true, from }
  const machine = nextPlace({ state: asPlaceState(prev.state), fails: prev.fails, successes: prev.successes }, attempt.ok, check.down_after, check.up_after)
  const next: PlaceRow = {
    ...prev,
    ...machine,
    last_ts: attempt.ts,
    last_ok: attempt.ok ? 1 : 0,
    last_response_ms: attempt.response_ms,
    last_error: attempt.ok ? null : attempt.error,
  }
  const on = new Set(active)
  const states = places.filter((p) => p.place !== place && on.has(p.place)).map((p) => asPlaceState(p.state))
  if (on.has(place)) states.push(machine.state)
  const to = combine(states)
  const latest = check.last_checked_at === null || attempt.ts >= check.last_checked_at
  const changes: CheckChanges = {
    state: to,
    state_since: to !== from ? attempt.ts : check.state_since,
    ...(latest
      ? {
          last_checked_at: attempt.ts,
          last_response_ms: attempt.response_ms,
          last_status_code: attempt.status_code,
          last_error: attempt.ok ? null : attempt.error,
          cert_expires_at: attempt.cert_expires_at ?? check.cert_expires_at,
        }
      : {}),
  }
  const incident = to === 'down' && from !== 'down' ? 'open' : from === 'down' && to !== 'down' ? 'close' : null
  return { place: next, changes, from, to, incident }
}
