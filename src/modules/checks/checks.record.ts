import type { Attempt, CheckChange } from './checks.attempt'
import type { ChecksStore } from './checks.store'
import type { CheckRow } from './checks.store.rows'

/* Recording an attempt for the scheduler, the agents' batches and the heartbeat calls: the store does the work in one call. */

export interface RecordDeps {
  checks: Pick<ChecksStore, 'anyById' | 'record'>
  /** the places a check runs at now (hub and/or its devices' seqs), for combining their states */
  placesOf: (check: CheckRow) => Promise<number[]>
}

/**
 * Stores one attempt and moves the state machines, in one transaction of the store (the raw
 * row and the summaries, the place's own state, the check's combined state, an incident opened
 * or closed; on PostgreSQL under the check's row lock, so of two hubs recording at once each
 * sees the other's result and an incident opens once). A replayed attempt (same check, place
 * and time) changes nothing and answers null.
 */
export async function recordAttempt(deps: RecordDeps, checkId: string, place: number, attempt: Attempt): Promise<CheckChange | null> {
  const check = await deps.checks.anyById(checkId)
  if (!check) return null
  return deps.checks.record(checkId, place, attempt, await deps.placesOf(check))
}
