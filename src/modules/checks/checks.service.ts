import { AppError, notFound } from '../../http/errors'
import type { Clock } from '../../lib/clock'
import { sha256Hex, randomToken } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import type { OutboundPolicy, Refusal, SelfAddresses } from '../../lib/outbound/outbound.policy'
import type { IncidentsStore } from './checks.incidents'
import type { CheckCreate, CheckKind, CheckPatch, CheckResponse, CheckSettings, CheckTest, ProbeResult } from './checks.model'
import { HUB_PLACE, type CheckChange } from './checks.attempt'
import { openSettings, sealSettings } from './checks.secrets'
import { normalizeSettings, policyProblem, unmaskSettings, urlProblem } from './checks.settings'
import type { ChecksStore } from './checks.store'
import type { CheckRow, CheckChanges } from './checks.store.rows'
import type { ResultsStore } from './checks.summaries'
import { checkView } from './checks.views'
import { runProbe } from './probes/probe.run'
import type { ProbeDeps } from './probes/probe.types'

export interface ChecksDeps {
  checks: ChecksStore
  results: ResultsStore
  incidents: IncidentsStore
  clock: Clock
  logger: Logger
  /** the seq of one of the client's devices, or null when it has no such device */
  deviceSeq: (clientId: string, deviceId: string) => Promise<number | null>
  /** where this client's hub-run checks may connect (docs/outbound.md) */
  policyFor: (clientId: string) => OutboundPolicy
  selfAddresses: SelfAddresses
  /** a refused target worded for its reader (the operator is told which setting allows it) */
  refusalWords: (clientId: string) => (r: Refusal) => string
  /** the hub's probe dependencies for the client (its outbound policy) */
  probeDeps: (clientId: string) => ProbeDeps
  /** takes one of the account's "test now" tokens, or throws 429 */
  testNow: (clientId: string) => void
  /** where heartbeat URLs point */
  siteUrl: string
  maxChecks: number
  /** the instance's key for third-party secrets at rest (a check's credential headers, body, URL) */
  secretKey: () => Uint8Array
  /** a check was created, changed or removed (null): the scheduler replans it */
  scheduleChanged: (checkId: string, row: CheckRow | null) => void
  /** an attempt was recorded (the alert source hears it) */
  stateChanged: (change: CheckChange) => void
  /** a check was deleted: its alerts and its places on status pages go with it (awaited before the answer) */
  removed: (clientId: string, checkId: string) => Promise<void>
}

const HEARTBEAT_TOKEN_BYTES = 24

export async function requireCheck(deps: Pick<ChecksDeps, 'checks'>, clientId: string, checkId: string): Promise<CheckRow> {
  const row = await deps.checks.byId(clientId, checkId)
  if (!row) throw notFound('Check')
  return row
}

/** The device ids as given, each checked to be one of the client's devices (else 422 naming it). */
async function placesFor(
  deps: ChecksDeps,
  clientId: string,
  kind: CheckKind,
  runOnHub: boolean,
  deviceIds: string[],
): Promise<{ runOnHub: boolean; deviceIds: string[] }> {
  if (kind === 'heartbeat') return { runOnHub: true, deviceIds: [] }
  const ids = [...new Set(deviceIds)]
  for (const [i, id] of ids.entries()) {
    if ((await deps.deviceSeq(clientId, id)) === null) throw new AppError('invalid_parameter', `device_ids[${i}] is not one of your devices`, `device_ids.${i}`)
  }
  if (!runOnHub && !ids.length) throw new AppError('invalid_parameter', 'A check runs somewhere: set run_on_hub or give device_ids', 'run_on_hub')
  return { runOnHub, deviceIds: ids }
}

function checkPolicy(deps: ChecksDeps, clientId: string, kind: CheckKind, settings: CheckSettings, runOnHub: boolean) {
  // the URL's own form wherever the check runs (policyProblem starts with it); the address it names only where the hub calls it
  const problem = runOnHub
    ? policyProblem(kind, settings, deps.policyFor(clientId), deps.selfAddresses, deps.refusalWords(clientId))
    : urlProblem(kind, settings)
  if (problem) throw problem
}

async function checkDependency(deps: ChecksDeps, clientId: string, deviceId: string | null | undefined) {
  if (deviceId && (await deps.deviceSeq(clientId, deviceId)) === null) {
    throw new AppError('invalid_parameter', 'depends_on_device_id is not one of your devices', 'depends_on_device_id')
  }
}

function checkTimeout(timeoutMs: number, intervalS: number) {
  if (timeoutMs > intervalS * 1000) throw new AppError('invalid_parameter', 'timeout_ms must not exceed the interval', 'timeout_ms')
}

const newToken = () => `hb_${randomToken(HEARTBEAT_TOKEN_BYTES)}`

/** A new check; a heartbeat's token is in this answer only. */
export async function createCheck(deps: ChecksDeps, clientId: string, body: CheckCreate): Promise<CheckResponse> {
  const limited = () => new AppError('conflict', `An account may have at most ${deps.maxChecks} checks; delete one first`)
  if ((await deps.checks.count(clientId)) >= deps.maxChecks) throw limited()
  const settings = normalizeSettings(body.kind, body.settings)
  const where = await placesFor(deps, clientId, body.kind, body.run_on_hub ?? !body.device_ids?.length, body.device_ids ?? [])
  checkPolicy(deps, clientId, body.kind, settings, where.runOnHub && body.kind !== 'heartbeat')
  await checkDependency(deps, clientId, body.depends_on_device_id)
  const intervalS = body.interval_s ?? 60
  const timeoutMs = body.timeout_ms ?? Math.min(10_000, intervalS * 1000)
  checkTimeout(timeoutMs, intervalS)
  const now = deps.clock.now()
  const token = body.kind === 'heartbeat' ? newToken() : null
  const heartbeat = body.kind === 'heartbeat'
  const id = newId('chk')
  const row = await deps.checks.create(
    {
      id,
      client_id: clientId,
      name: body.name.trim() || body.name,
      kind: body.kind,
      settings: sealSettings(deps.secretKey(), clientId, id, settings),
      interval_s: heartbeat ? settings.period_s! : intervalS,
      timeout_ms: timeoutMs,
      // a heartbeat's call is decisive: one missed deadline is down, one call is up again
      down_after: heartbeat ? 1 : (body.down_after ?? 3),
      up_after: heartbeat ? 1 : (body.up_after ?? 2),
      run_on_hub: where.runOnHub ? 1 : 0,
      device_ids: JSON.stringify(where.deviceIds),
      depends_on_device_id: body.depends_on_device_id ?? null,
      paused: body.paused ? 1 : 0,
      hb_token_hash: token ? sha256Hex(token) : null,
      hb_token_hint: token ? token.slice(-4) : null,
      state: 'pending',
      state_since: now,
      last_checked_at: null,
      last_response_ms: null,
      last_status_code: null,
      last_error: null,
      cert_expires_at: null,
      created_at: now,
      updated_at: now,
    },
    deps.maxChecks,
  )
  if (!row) throw limited()
  deps.scheduleChanged(row.id, row)
  return viewOf(deps, row, token)
}

export async function updateCheck(deps: ChecksDeps, clientId: string, checkId: string, patch: CheckPatch): Promise<CheckResponse> {
  const row = await requireCheck(deps, clientId, checkId)
  const kind = row.kind as CheckKind
  const stored = openSettings(deps.secretKey, clientId, row.id, row.settings)
  const settings = patch.settings ? unmaskSettings(normalizeSettings(kind, patch.settings), stored) : stored
  // devices deleted since the check was saved drop out of it; the ones sent now must all exist
  const kept: string[] = []
  for (const id of JSON.parse(row.device_ids) as string[]) if ((await deps.deviceSeq(clientId, id)) !== null) kept.push(id)
  const where = await placesFor(deps, clientId, kind, patch.run_on_hub ?? row.run_on_hub === 1, patch.device_ids ?? kept)
  checkPolicy(deps, clientId, kind, settings, where.runOnHub && kind !== 'heartbeat')
  if (patch.depends_on_device_id !== undefined) await checkDependency(deps, clientId, patch.depends_on_device_id)
  const heartbeat = kind === 'heartbeat'
  const intervalS = heartbeat ? settings.period_s! : (patch.interval_s ?? row.interval_s)
  const timeoutMs = patch.timeout_ms ?? Math.min(row.timeout_ms, intervalS * 1000)
  if (!heartbeat) checkTimeout(timeoutMs, intervalS)
  const now = deps.clock.now()
  const changes: CheckChanges = {
    settings: sealSettings(deps.secretKey(), clientId, checkId, settings),
    interval_s: intervalS,
    timeout_ms: timeoutMs,
    run_on_hub: where.runOnHub ? 1 : 0,
    device_ids: JSON.stringify(where.deviceIds),
    updated_at: now,
  }
  if (patch.name !== undefined) changes.name = patch.name
  if (!heartbeat && patch.down_after !== undefined) changes.down_after = patch.down_after
  if (!heartbeat && patch.up_after !== undefined) changes.up_after = patch.up_after
  if (patch.depends_on_device_id !== undefined) changes.depends_on_device_id = patch.depends_on_device_id
  if (patch.paused !== undefined && patch.paused !== (row.paused === 1)) {
    changes.paused = patch.paused ? 1 : 0
    // resuming starts afresh: the old state says nothing about now, and a heartbeat's deadline counts from here
    if (!patch.paused) Object.assign(changes, { state: 'pending', state_since: now })
  }
  const next = await deps.checks.update(clientId, checkId, changes, {
    dropPlaces: changes.state === 'pending',
    closeIncidentAt: changes.paused !== undefined ? now : undefined,
  })
  if (!next) throw notFound('Check')
  deps.scheduleChanged(checkId, next)
  return viewOf(deps, next, null)
}

export async function deleteCheck(deps: ChecksDeps, clientId: string, checkId: string): Promise<void> {
  if (!(await deps.checks.remove(clientId, checkId))) throw notFound('Check')
  deps.scheduleChanged(checkId, null)
  await deps.removed(clientId, checkId)
}

/** A new heartbeat token, shown in this answer only; the old one stops working at once. */
export async function rotateToken(deps: ChecksDeps, clientId: string, checkId: string): Promise<CheckResponse> {
  const row = await requireCheck(deps, clientId, checkId)
  if (row.kind !== 'heartbeat') throw new AppError('conflict', 'Only a heartbeat check has a token')
  const token = newToken()
  const next = await deps.checks.update(clientId, checkId, { hb_token_hash: sha256Hex(token), hb_token_hint: token.slice(-4), updated_at: deps.clock.now() })
  if (!next) throw notFound('Check')
  return viewOf(deps, next, token)
}

/** "Test now": the definition run once from the hub, under the account's outbound policy; nothing is stored. */
export async function testCheck(deps: ChecksDeps, clientId: string, body: CheckTest): Promise<ProbeResult> {
  if (body.kind === 'heartbeat') throw new AppError('bad_request', 'A heartbeat check is not run by the hub: call its URL to test it', 'kind')
  const settings = normalizeSettings(body.kind, body.settings)
  checkPolicy(deps, clientId, body.kind, settings, true)
  deps.testNow(clientId)
  return runProbe({ kind: body.kind, settings, timeout_ms: body.timeout_ms ?? 10_000 }, deps.probeDeps(clientId))
}

/** The places a check runs at now: the hub (0) and its devices' seqs. */
export async function placesOf(deps: Pick<ChecksDeps, 'deviceSeq'>, row: CheckRow): Promise<number[]> {
  const out: number[] = row.run_on_hub ? [HUB_PLACE] : []
  for (const id of JSON.parse(row.device_ids) as string[]) {
    const seq = await deps.deviceSeq(row.client_id, id)
    if (seq !== null) out.push(seq)
  }
  return out
}

export function viewOf(deps: ChecksDeps, row: CheckRow, token: string | null): Promise<CheckResponse> {
  return checkView(deps, row, token)
}
