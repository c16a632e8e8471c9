import { notFound } from '../../http/errors'
import { sha256Hex } from '../../lib/crypto'
import type { CheckState } from './checks.model'
import { recordAttempt, type RecordDeps } from './checks.record'
import { HUB_PLACE } from './checks.attempt'
import type { ChecksDeps } from './checks.service'
import type { CheckRow } from './checks.store.rows'
import { stateOf } from './checks.views'

type HeartbeatDeps = Pick<ChecksDeps, 'checks' | 'clock' | 'stateChanged'> & RecordDeps

const settingsOf = (row: CheckRow) => JSON.parse(row.settings) as { period_s: number; grace_s?: number }

/**
 * A call to a heartbeat URL: a success (or a failure, for /fail) at the time it arrives. An
 * unknown token is 404 like any unknown path, whether or not it ever existed. A paused check
 * answers but records nothing.
 */
export async function heartbeat(deps: HeartbeatDeps, token: string, ok: boolean): Promise<{ ok: boolean; state: CheckState }> {
  const row = token.startsWith('hb_') ? await deps.checks.byTokenHash(sha256Hex(token)) : null
  if (row?.kind !== 'heartbeat') throw notFound('Heartbeat')
  if (row.paused) return { ok: true, state: 'paused' }
  const now = deps.clock.now()
  const change = await recordAttempt(deps, row.id, HUB_PLACE, {
    ts: now,
    ok,
    response_ms: null,
    status_code: null,
    error: ok ? null : 'the job reported a failure',
    cert_expires_at: null,
  })
  if (change) deps.stateChanged(change)
  return { ok: true, state: stateOf(change?.check ?? row) }
}

/**
 * Late heartbeats: a check whose last call (or start, or last miss) is more than period + grace
 * ago gets a failure at that deadline, which makes it down. Each further period without a call
 * adds one more miss, so uptime counts the missed periods.
 */
export async function sweepHeartbeats(deps: HeartbeatDeps): Promise<number> {
  const now = deps.clock.now()
  let missed = 0
  for (const row of await deps.checks.all()) {
    if (row.kind !== 'heartbeat' || row.paused) continue
    const s = settingsOf(row)
    const place = (await deps.checks.places(row.seq)).find((p) => p.place === HUB_PLACE)
    const last = place?.last_ts ?? row.state_since ?? row.created_at
    const deadline = last + (s.period_s + (s.grace_s ?? 0)) * 1000
    if (now <= deadline) continue
    const change = await recordAttempt(deps, row.id, HUB_PLACE, {
      ts: deadline,
      ok: false,
      response_ms: null,
      status_code: null,
      error: `heartbeat missed: no call within ${s.period_s} s + ${s.grace_s ?? 0} s grace`,
      cert_expires_at: null,
    })
    if (change) {
      missed++
      deps.stateChanged(change)
    }
  }
  return missed
}
