import { AppError, notFound } from '../../http/errors'
import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Silence, SilenceIn } from './alerts.model'
import type { AlertsDeps } from './alerts.ports'
import { invalid } from './alerts.rules.service'
import { toSilenceSpec } from './runtime/alerts.compiled-rules'
import { checkRecurrence, silenceActive, validTimeZone } from './runtime/alerts.silence-windows'
import type { SilenceRow } from './alerts.store'

/** Per account: recurring windows and one-offs kept for the record; each is checked for every notice. */
export const MAX_SILENCES = 500

function toSilence(r: SilenceRow, now: number): Silence {
  return {
    id: r.id,
    comment: r.comment,
    scope: { type: r.scope_type as Silence['scope']['type'], value: r.scope_value },
    rule_id: r.rule_id,
    starts_at: r.starts_at === null ? null : toIso(r.starts_at),
    ends_at: r.ends_at === null ? null : toIso(r.ends_at),
    cron: r.cron,
    duration_seconds: r.duration_seconds,
    timezone: r.timezone,
    active: silenceActive(toSilenceSpec(r), now),
    created_by: r.created_by,
    created_at: toIso(r.created_at),
  }
}

const TAG = /^[a-z0-9._-]{1,40}$/

/** A window must say when: a start and an end, or a pattern and a duration (an open end is allowed for "until I lift it"). */
async function check(deps: AlertsDeps, clientId: string, r: SilenceRow) {
  const value = r.scope_value
  if (r.scope_type === 'all' && value !== null) throw invalid(['scope', 'value'], 'must be null when the scope is all')
  if (r.scope_type === 'tag' && (value === null || !TAG.test(value))) throw invalid(['scope', 'value'], 'a tag: 1 to 40 of a-z 0-9 . _ -')
  if (r.scope_type === 'device' && (value === null || !deps.devices.find(clientId, value))) throw invalid(['scope', 'value'], 'no such device in this account')
  if (r.rule_id !== null && !(await deps.store.rule(clientId, r.rule_id))) throw invalid(['rule_id'], 'no such rule in this account')
  if (r.starts_at !== null && r.ends_at !== null && r.ends_at <= r.starts_at) throw invalid(['ends_at'], 'must be after starts_at')
  if (r.cron === null) {
    if (r.duration_seconds !== null || r.timezone !== null)
      throw invalid(['cron'], 'duration_seconds and timezone belong to a recurring window: give its cron pattern')
    if (r.starts_at === null && r.ends_at === null)
      throw invalid(['ends_at'], 'a one-off silence needs starts_at or ends_at (or give cron for a recurring one)')
    return
  }
  if (r.duration_seconds === null) throw invalid(['duration_seconds'], 'a recurring window needs its duration')
  if (r.timezone !== null && !validTimeZone(r.timezone)) throw invalid(['timezone'], 'not an IANA time zone (e.g. Europe/Paris, UTC)')
  try {
    checkRecurrence(r.cron, r.timezone ?? 'UTC')
  } catch (err) {
    throw invalid(['cron'], `not a valid cron pattern: ${(err as Error).message}`)
  }
}

function apply(row: SilenceRow, body: SilenceIn) {
  const has = (k: keyof SilenceIn) => body[k] !== undefined
  if (has('comment')) row.comment = body.comment!
  if (has('scope')) {
    row.scope_type = body.scope!.type
    row.scope_value = body.scope!.value ?? null
  }
  if (has('rule_id')) row.rule_id = body.rule_id!
  if (has('starts_at')) row.starts_at = body.starts_at === null ? null : Date.parse(body.starts_at!)
  if (has('ends_at')) row.ends_at = body.ends_at === null ? null : Date.parse(body.ends_at!)
  if (has('cron')) row.cron = body.cron!
  if (has('duration_seconds')) row.duration_seconds = body.duration_seconds!
  if (has('timezone')) row.timezone = body.timezone!
}

export async function listSilences(deps: AlertsDeps, clientId: string) {
  const now = deps.clock.now()
  return { items: (await deps.store.silencesOf(clientId)).map((r) => toSilence(r, now)) }
}

export async function getSilence(deps: AlertsDeps, clientId: string, id: string): Promise<Silence> {
  const row = await deps.store.silence(clientId, id)
  if (!row) throw notFound('Silence')
  return toSilence(row, deps.clock.now())
}

export async function createSilence(deps: AlertsDeps, clientId: string, userId: string, body: SilenceIn): Promise<Silence> {
  const now = deps.clock.now()
  const row: SilenceRow = {
    id: newId('sil'),
    client_id: clientId,
    comment: '',
    scope_type: 'all',
    scope_value: null,
    rule_id: null,
    starts_at: null,
    ends_at: null,
    cron: null,
    duration_seconds: null,
    timezone: null,
    created_by: deps.users.emailOf(userId) ?? userId,
    created_at: now,
  }
  apply(row, body)
  // a one-off window given only its end starts now
  if (row.cron === null && row.starts_at === null && row.ends_at !== null) row.starts_at = Math.min(now, row.ends_at - 1)
  await check(deps, clientId, row)
  if (!(await deps.store.addSilence(row, MAX_SILENCES))) {
    throw new AppError('conflict', `An account may have ${MAX_SILENCES} silences; lift the ones that are over first`)
  }
  await deps.runtime.reload(clientId)
  return toSilence(row, now)
}

export async function updateSilence(deps: AlertsDeps, clientId: string, id: string, body: SilenceIn): Promise<Silence> {
  const row = await deps.store.silence(clientId, id)
  if (!row) throw notFound('Silence')
  apply(row, body)
  await check(deps, clientId, row)
  if (!(await deps.store.updateSilence(row))) throw notFound('Silence')
  await deps.runtime.reload(clientId)
  return toSilence(row, deps.clock.now())
}

export async function deleteSilence(deps: AlertsDeps, clientId: string, id: string): Promise<void> {
  if (!(await deps.store.deleteSilence(clientId, id))) throw notFound('Silence')
  await deps.runtime.reload(clientId)
}

// ---- dependencies (gateways) ----

export async function listDependencies(deps: AlertsDeps, clientId: string) {
  return { items: (await deps.store.dependenciesOf(clientId)).map((d) => ({ device_id: d.device_id, parent_device_id: d.parent_device_id })) }
}

/** The device is reached through `parent` (a gateway, a router that reports): its offline alert waits behind the gateway's. */
export async function setDependency(deps: AlertsDeps, clientId: string, deviceId: string, parent: string) {
  if (!deps.devices.find(clientId, deviceId)) throw notFound('Device')
  if (!deps.devices.find(clientId, parent)) throw invalid(['parent_device_id'], 'no such device in this account')
  // no circle: walking up from the parent must not come back to the device
  const parents = new Map((await deps.store.dependenciesOf(clientId)).map((d) => [d.device_id, d.parent_device_id]))
  for (let at: string | undefined = parent, hops = 0; at !== undefined && hops < 1000; at = parents.get(at), hops++) {
    if (at === deviceId) throw invalid(['parent_device_id'], 'that would make a circle of gateways')
  }
  await deps.store.setDependency({ device_id: deviceId, client_id: clientId, parent_device_id: parent })
  await deps.runtime.reload(clientId)
  return { device_id: deviceId, parent_device_id: parent }
}

export async function deleteDependency(deps: AlertsDeps, clientId: string, deviceId: string): Promise<void> {
  if (!(await deps.store.deleteDependency(clientId, deviceId))) throw notFound('Dependency')
  await deps.runtime.reload(clientId)
}
