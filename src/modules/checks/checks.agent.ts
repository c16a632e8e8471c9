import { AppError, notFound } from '../../http/errors'
import type { KeyPrincipal } from '../../http/principal'
import { sha256Hex } from '../../lib/crypto'
import type { CheckDefinition, CheckKind, CheckResultIn } from './checks.model'
import type { RecordDeps } from './checks.record'
import type { CheckRow } from './checks.store.rows'
import { openSettings } from './checks.secrets'
import type { ChecksDeps } from './checks.service'

type AgentDeps = Pick<ChecksDeps, 'checks' | 'deviceSeq' | 'stateChanged' | 'clock' | 'secretKey'> & RecordDeps

/** The device a key speaks for: the one named (it must be the client's, and the key's if bound), else the key's own. */
async function deviceOf(deps: AgentDeps, key: KeyPrincipal, named: string | undefined): Promise<{ id: string; seq: number }> {
  const id = named ?? key.deviceId
  if (!id) throw new AppError('device_required', 'Name the device: device_id, or a key bound to one')
  if (key.deviceId && key.deviceId !== id) throw new AppError('device_mismatch', 'This API key is bound to another device')
  const seq = await deps.deviceSeq(key.clientId, id)
  if (seq === null) throw notFound('Device')
  return { id, seq }
}

const runsOn = (deviceIds: string, deviceId: string) => (JSON.parse(deviceIds) as string[]).includes(deviceId)

/** The definitions of the checks a device's agent runs (paused ones are not), and their etag. */
export async function agentChecks(deps: AgentDeps, key: KeyPrincipal, deviceId: string | undefined): Promise<{ checks: CheckDefinition[]; etag: string }> {
  const device = await deviceOf(deps, key, deviceId)
  const checks = (await deps.checks.list(key.clientId))
    .filter((r) => !r.paused && r.kind !== 'heartbeat' && runsOn(r.device_ids, device.id))
    .map((r) => ({
      id: r.id,
      name: r.name,
      kind: r.kind as CheckKind,
      // the agent runs the probe: it gets the secrets, over its own authenticated (HTTPS) request
      settings: openSettings(deps.secretKey, key.clientId, r.id, r.settings),
      interval_s: r.interval_s,
      timeout_ms: r.timeout_ms,
    }))
  return { checks, etag: `"${sha256Hex(JSON.stringify(checks)).slice(0, 32)}"` }
}

/**
 * Results an agent sent in its batch (now or replayed later): each stored at its own time for
 * the device's place, once (a replay is recognised by check, place and time). A result for a
 * check that is not the client's, or no longer runs on this device, is dropped: the agent
 * learns its new list at its next poll.
 */
export async function ingestCheckResults(deps: AgentDeps, clientId: string, deviceId: string, results: CheckResultIn[]): Promise<number> {
  const seq = await deps.deviceSeq(clientId, deviceId)
  if (seq === null) return 0
  const now = deps.clock.now()
  // the places each check runs at, read once per batch (a batch holds many results of few checks)
  const placesOfCheck = new Map<string, Promise<number[]>>()
  const active = (check: CheckRow) => {
    let p = placesOfCheck.get(check.id)
    if (!p) placesOfCheck.set(check.id, (p = deps.placesOf(check)))
    return p
  }
  let stored = 0
  for (const r of results) {
    const check = await deps.checks.byId(clientId, r.check_id)
    if (!check || check.paused || !runsOn(check.device_ids, deviceId)) continue
    // the agent's clock, but never ahead of the hub's: a result from the future would hold the state
    const ts = Math.min(Date.parse(r.ts), now)
    const change = await deps.checks.record(
      check.id,
      seq,
      {
        ts,
        ok: r.ok,
        response_ms: r.response_ms,
        status_code: r.status_code,
        error: r.ok ? null : (r.error ?? 'failed'),
        cert_expires_at: r.cert_expires_at === null ? null : Date.parse(r.cert_expires_at),
      },
      await active(check),
    )
    if (change) {
      stored++
      deps.stateChanged(change)
    }
  }
  return stored
}
