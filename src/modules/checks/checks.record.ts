import type { IncidentsStore } from './checks.incidents'
import { combine, nextPlace, type CombinedState, type PlaceState } from './checks.state'
import type { CheckRow, ChecksStore, PlaceRow } from './checks.store'
import type { ResultsStore } from './checks.summaries'

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

export interface RecordDeps {
  checks: ChecksStore
  results: ResultsStore
  incidents: IncidentsStore
  transaction: <T>(fn: () => T) => T
  /** the places a check runs at now (hub and/or its devices' seqs), for combining their states */
  placesOf: (check: CheckRow) => number[]
}

const asPlaceState = (s: string): PlaceState => (s === 'up' || s === 'down' ? s : 'pending')

/**
 * Stores one attempt and moves the state machines, in one transaction: the raw row and the
 * summaries, the place's own state, the check's combined state, and an incident opened or
 * closed. A replayed attempt (same check, place and time) changes nothing and answers null; an
 * attempt older than the place's latest is stored but moves no state (a late agent batch
 * cannot undo what newer results decided).
 */
export function recordAttempt(deps: RecordDeps, checkId: string, place: number, attempt: Attempt): CheckChange | null {
  return deps.transaction(() => {
    const check = deps.checks.anyById(checkId)
    if (!check) return null
    const fresh = deps.results.record({
      check_seq: check.seq,
      place,
      ts: attempt.ts,
      ok: attempt.ok ? 1 : 0,
      response_ms: attempt.response_ms === null ? null : Math.round(attempt.response_ms),
      status_code: attempt.status_code,
      error: attempt.ok ? null : attempt.error,
    })
    if (!fresh) return null
    const places = deps.checks.places(check.seq)
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
    if (prev.last_ts !== null && attempt.ts < prev.last_ts) return { check, place, attempt, from, to: from }
    const machine = nextPlace({ state: asPlaceState(prev.state), fails: prev.fails, successes: prev.successes }, attempt.ok, check.down_after, check.up_after)
    const next: PlaceRow = {
      ...prev,
      ...machine,
      last_ts: attempt.ts,
      last_ok: attempt.ok ? 1 : 0,
      last_response_ms: attempt.response_ms,
      last_error: attempt.ok ? null : attempt.error,
    }
    deps.checks.savePlace(next)
    const active = new Set(deps.placesOf(check))
    const states = [...places.filter((p) => p.place !== place && active.has(p.place)).map((p) => asPlaceState(p.state))]
    if (active.has(place)) states.push(machine.state)
    const to = combine(states)
    const latest = check.last_checked_at === null || attempt.ts >= check.last_checked_at
    deps.checks.update(check.client_id, check.id, {
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
    })
    if (to === 'down' && from !== 'down') deps.incidents.open(check.client_id, check.id, attempt.ts, attempt.error)
    if (from === 'down' && to !== 'down') deps.incidents.close(check.id, attempt.ts)
    return { check: deps.checks.anyById(check.id)!, place, attempt, from, to }
  })
}
