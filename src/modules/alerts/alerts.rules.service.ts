import { AppError, notFound } from '../../http/errors'
import { RequestValidationError } from '../../http/input'
import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { StoredSample } from '../metrics/metrics.service'
import { DEFAULT_RULES } from './alerts.defaults'
import type { OverrideIn, Rule, RuleIn, RulePatch, ScopeIn, Settings, SettingsPatch } from './alerts.model'
import type { AlertsDeps } from './alerts.ports'
import type { OverrideRow, RuleRow } from './alerts.store'
import type { Observation } from './runtime/alerts.runtime-state'
import { DEFAULT_GROUP_WINDOW_S } from './runtime/alerts.compiled-rules'
import { compileSelector } from './runtime/alerts.selectors'

/** Per account: enough for every device class and metric, few enough that the ingest path stays cheap. */
export const MAX_RULES = 200

export const invalid = (loc: (string | number)[], msg: string) => new RequestValidationError([{ loc: ['body', ...loc], msg, type: 'value_error' }])

const TAG = /^[a-z0-9._-]{1,40}$/

function checkScope(deps: AlertsDeps, clientId: string, scope: ScopeIn, loc: string) {
  const value = scope.value ?? null
  if (scope.type === 'all' && value !== null) throw invalid([loc, 'value'], 'must be null when the scope is all')
  if (scope.type === 'tag' && (value === null || !TAG.test(value))) throw invalid([loc, 'value'], 'a tag: 1 to 40 of a-z 0-9 . _ -')
  if (scope.type === 'device' && (value === null || !deps.devices.find(clientId, value))) throw invalid([loc, 'value'], 'no such device in this account')
}

async function checkChannels(deps: AlertsDeps, clientId: string, ids: string[], loc: (string | number)[]) {
  if (!ids.length) return
  const unknown = await deps.channels.unknown(clientId, [...new Set(ids)])
  if (unknown.length) throw invalid(loc, `no such channel in this account: ${unknown.join(', ')}`)
}

// ---- rules ----

/** The default rules, made once per client (the first report of one of its devices, or the first look at its rules). */
export function ensureDefaults(deps: Pick<AlertsDeps, 'store' | 'clock' | 'runtime'>, clientId: string): Promise<void> {
  // the store makes them once per client however many hubs ask at once; a built-in the client has is kept
  return deps.runtime.ensureDefaults(clientId, () => {
    const now = deps.clock.now()
    const rows = DEFAULT_RULES.map((d) => toRow(clientId, d.rule, now, d.key))
    return deps.store.makeDefaults(clientId, rows, DEFAULT_GROUP_WINDOW_S, now)
  })
}

/** Evaluates an observation after the client's defaults are made; never throws (ingest and checks go on). A promise while changes are written. */
export function observeSafely(deps: Pick<AlertsDeps, 'store' | 'clock' | 'runtime' | 'logger'>, o: Observation): Promise<void> | undefined {
  const failed = (err: unknown) =>
    deps.logger.error('alert evaluation failed', { client_id: o.clientId, device_id: o.deviceId, source: o.source, error: (err as Error).message })
  // both are queued now, in this order: whoever waits for the runtime to settle sees the observation evaluated
  const defaults = deps.runtime.isSetUp(o.clientId) ? null : ensureDefaults(deps, o.clientId)
  try {
    const observed = deps.runtime.observe(o)
    if (defaults || observed) return Promise.all([defaults, observed]).then(() => {}, failed)
  } catch (err) {
    failed(err)
  }
}

/** The ingest observer: ensures the defaults on a client's first report, then evaluates the sample. Never throws into ingest. */
export function observeSample(deps: Pick<AlertsDeps, 'store' | 'clock' | 'runtime' | 'logger'>, s: StoredSample): Promise<void> | undefined {
  return observeSafely(deps, { clientId: s.clientId, deviceId: s.deviceId, source: s.kind, ts: s.ts, values: s.values })
}

function toRow(clientId: string, r: RuleIn, now: number, builtin: string | null = null): RuleRow {
  const kind = r.kind ?? 'threshold'
  return {
    id: newId('rul'),
    client_id: clientId,
    name: r.name,
    enabled: r.enabled === false ? 0 : 1,
    kind,
    metric: kind === 'threshold' ? (r.metric ?? null) : null,
    operator: r.operator ?? '>',
    threshold: kind === 'threshold' ? (r.threshold ?? null) : null,
    recovery_threshold: kind === 'threshold' ? (r.recovery_threshold ?? null) : null,
    for_seconds: r.for_seconds ?? 0,
    offline_intervals: kind === 'offline' ? (r.offline_intervals ?? 5) : null,
    forecast_hours: kind === 'disk_forecast' ? (r.forecast_hours ?? 48) : null,
    severity: r.severity ?? 'warning',
    scope_type: r.scope?.type ?? 'all',
    scope_value: r.scope?.value ?? null,
    channel_ids: JSON.stringify(r.channel_ids ?? []),
    repeat_seconds: r.repeat_seconds ?? null,
    notify_recovery: r.notify_recovery === false ? 0 : 1,
    recovery_delay_seconds: r.recovery_delay_seconds ?? 0,
    builtin,
    created_at: now,
    updated_at: now,
  }
}

/** What makes a rule whole: a readable metric and a threshold for threshold rules, a recovery point on the healthy side. */
async function checkRule(deps: AlertsDeps, r: RuleRow, patchOrBody: RuleIn | RulePatch) {
  if (r.kind === 'threshold') {
    if (!r.metric) throw invalid(['metric'], 'a threshold rule needs a metric')
    const sel = (deps.selectors ?? compileSelector)(r.metric)
    if ('error' in sel) throw invalid(['metric'], sel.error)
    if (r.threshold === null) throw invalid(['threshold'], 'a threshold rule needs a threshold')
    if (r.recovery_threshold !== null) {
      const up = r.operator === '>' || r.operator === '>='
      if (up ? r.recovery_threshold > r.threshold : r.recovery_threshold < r.threshold) {
        throw invalid(['recovery_threshold'], `must be on the healthy side of the threshold (${up ? 'at or below' : 'at or above'} ${r.threshold})`)
      }
    }
  } else {
    if (patchOrBody.metric) throw invalid(['metric'], `a ${r.kind} rule takes no metric`)
    if (patchOrBody.threshold !== undefined && patchOrBody.threshold !== null) throw invalid(['threshold'], `a ${r.kind} rule takes no threshold`)
  }
  if (patchOrBody.scope) checkScope(deps, r.client_id, patchOrBody.scope, 'scope')
  if (patchOrBody.channel_ids) await checkChannels(deps, r.client_id, patchOrBody.channel_ids, ['channel_ids'])
}

export function toRule(r: RuleRow, overrides: OverrideRow[], scopeDeviceMissing: boolean): Rule {
  return {
    id: r.id,
    kind: r.kind as Rule['kind'],
    name: r.name,
    enabled: r.enabled === 1,
    severity: r.severity as Rule['severity'],
    metric: r.metric,
    operator: (r.operator ?? '>') as Rule['operator'],
    threshold: r.threshold,
    recovery_threshold: r.recovery_threshold,
    for_seconds: r.for_seconds,
    offline_intervals: r.offline_intervals,
    forecast_hours: r.forecast_hours,
    scope: { type: r.scope_type as ScopeIn['type'], value: r.scope_value },
    channel_ids: JSON.parse(r.channel_ids) as string[],
    repeat_seconds: r.repeat_seconds,
    notify_recovery: r.notify_recovery === 1,
    recovery_delay_seconds: r.recovery_delay_seconds,
    builtin: r.builtin,
    scope_device_missing: scopeDeviceMissing,
    overrides: overrides
      .filter((o) => o.rule_id === r.id)
      .map((o) => ({
        device_id: o.device_id,
        enabled: o.enabled === null ? null : o.enabled === 1,
        threshold: o.threshold,
        recovery_threshold: o.recovery_threshold,
        for_seconds: o.for_seconds,
        severity: o.severity as Rule['severity'] | null,
      })),
    created_at: toIso(r.created_at),
    updated_at: toIso(r.updated_at),
  }
}

/** A rule scoped to one device that was deleted since: it watches nothing until its scope changes. */
const scopeDeviceMissing = (deps: AlertsDeps, r: RuleRow) =>
  r.scope_type === 'device' && (r.scope_value === null || !deps.devices.find(r.client_id, r.scope_value))

export async function listRules(deps: AlertsDeps, clientId: string): Promise<Rule[]> {
  await ensureDefaults(deps, clientId)
  const overrides = await deps.store.overridesOf(clientId)
  return (await deps.store.rulesOf(clientId)).map((r) => toRule(r, overrides, scopeDeviceMissing(deps, r)))
}

export async function getRule(deps: AlertsDeps, clientId: string, ruleId: string): Promise<Rule> {
  const row = await deps.store.rule(clientId, ruleId)
  if (!row) throw notFound('Rule')
  return toRule(row, await deps.store.overridesOf(clientId), scopeDeviceMissing(deps, row))
}

const full = () => new AppError('conflict', `An account may have ${MAX_RULES} alert rules; delete or reuse one first`)

export async function createRule(deps: AlertsDeps, clientId: string, body: RuleIn): Promise<Rule> {
  await ensureDefaults(deps, clientId)
  const row = toRow(clientId, body, deps.clock.now())
  await checkRule(deps, row, body)
  if ((await deps.store.addRules(clientId, [row], MAX_RULES)) === null) throw full()
  await deps.runtime.reload(clientId)
  return getRule(deps, clientId, row.id)
}

export async function updateRule(deps: AlertsDeps, clientId: string, ruleId: string, patch: RulePatch): Promise<Rule> {
  const row = await deps.store.rule(clientId, ruleId)
  if (!row) throw notFound('Rule')
  const has = <K extends keyof RulePatch>(k: K) => patch[k] !== undefined
  const next: RuleRow = { ...row, updated_at: deps.clock.now() }
  if (has('name')) next.name = patch.name!
  if (has('enabled')) next.enabled = patch.enabled ? 1 : 0
  if (has('severity')) next.severity = patch.severity!
  if (has('metric') && row.kind === 'threshold') next.metric = patch.metric!
  if (has('operator')) next.operator = patch.operator!
  if (has('threshold') && row.kind === 'threshold') next.threshold = patch.threshold!
  if (has('recovery_threshold') && row.kind === 'threshold') next.recovery_threshold = patch.recovery_threshold!
  if (has('for_seconds')) next.for_seconds = patch.for_seconds!
  if (has('offline_intervals') && row.kind === 'offline') next.offline_intervals = patch.offline_intervals ?? 5
  if (has('forecast_hours') && row.kind === 'disk_forecast') next.forecast_hours = patch.forecast_hours ?? 48
  if (has('scope')) {
    next.scope_type = patch.scope!.type
    next.scope_value = patch.scope!.value ?? null
  }
  if (has('channel_ids')) next.channel_ids = JSON.stringify(patch.channel_ids)
  if (has('repeat_seconds')) next.repeat_seconds = patch.repeat_seconds!
  if (has('notify_recovery')) next.notify_recovery = patch.notify_recovery ? 1 : 0
  if (has('recovery_delay_seconds')) next.recovery_delay_seconds = patch.recovery_delay_seconds!
  await checkRule(deps, next, patch)
  // a rule switched off, or watching something else now, closes what it had open
  const retire = next.enabled === 0 || next.metric !== row.metric || next.scope_type !== row.scope_type || next.scope_value !== row.scope_value
  if (retire) await deps.runtime.retire(clientId, ruleId, 'the rule was changed or disabled')
  if (!(await deps.store.updateRule(next))) throw notFound('Rule')
  await deps.runtime.reload(clientId)
  return getRule(deps, clientId, ruleId)
}

export async function deleteRule(deps: AlertsDeps, clientId: string, ruleId: string): Promise<void> {
  if (!(await deps.store.rule(clientId, ruleId))) throw notFound('Rule')
  await deps.runtime.retire(clientId, ruleId, 'the rule was deleted')
  if (!(await deps.store.deleteRule(clientId, ruleId))) throw notFound('Rule')
  await deps.runtime.reload(clientId)
}

export async function putOverride(deps: AlertsDeps, clientId: string, ruleId: string, deviceId: string, body: OverrideIn): Promise<Rule> {
  const rule = await deps.store.rule(clientId, ruleId)
  const device = deps.devices.find(clientId, deviceId)
  if (!rule || !device || device.subject === 'check') throw notFound(rule ? 'Device' : 'Rule')
  if (rule.kind !== 'threshold' && (body.threshold != null || body.recovery_threshold != null))
    throw invalid(['threshold'], `a ${rule.kind} rule has no threshold to override`)
  const row: OverrideRow = {
    rule_id: ruleId,
    device_id: deviceId,
    client_id: clientId,
    enabled: body.enabled === undefined || body.enabled === null ? null : body.enabled ? 1 : 0,
    threshold: body.threshold ?? null,
    recovery_threshold: body.recovery_threshold ?? null,
    for_seconds: body.for_seconds ?? null,
    severity: body.severity ?? null,
    updated_at: deps.clock.now(),
  }
  const t = row.threshold ?? rule.threshold
  if (row.recovery_threshold !== null && t !== null) {
    const up = rule.operator === '>' || rule.operator === '>='
    if (up ? row.recovery_threshold > t : row.recovery_threshold < t) throw invalid(['recovery_threshold'], 'must be on the healthy side of the threshold')
  }
  if (row.enabled === 0) await deps.runtime.retire(clientId, ruleId, 'the rule was disabled for this device', deviceId)
  await deps.store.upsertOverride(row)
  await deps.runtime.reload(clientId)
  return getRule(deps, clientId, ruleId)
}

export async function deleteOverride(deps: AlertsDeps, clientId: string, ruleId: string, deviceId: string): Promise<void> {
  if (!(await deps.store.deleteOverride(clientId, ruleId, deviceId))) throw notFound('Override')
  await deps.runtime.reload(clientId)
}

export async function listDefaults(deps: AlertsDeps, clientId: string) {
  await ensureDefaults(deps, clientId)
  const rules = await deps.store.rulesOf(clientId)
  return {
    items: DEFAULT_RULES.map((d) => ({
      key: d.key,
      name: d.rule.name,
      description: d.description,
      rule_id: rules.find((r) => r.builtin === d.key)?.id ?? null,
    })),
  }
}

/** Makes again the default rules the client deleted; the ones it kept (edited or not) stay as they are. */
export async function restoreDefaults(deps: AlertsDeps, clientId: string) {
  await ensureDefaults(deps, clientId)
  const now = deps.clock.now()
  const rules = await deps.store.rulesOf(clientId)
  const missing = DEFAULT_RULES.filter((d) => !rules.some((r) => r.builtin === d.key))
  // one the client got back meanwhile (another request) is skipped by the store
  if (
    (await deps.store.addRules(
      clientId,
      missing.map((d) => toRow(clientId, d.rule, now, d.key)),
      MAX_RULES,
    )) === null
  )
    throw full()
  await deps.runtime.reload(clientId)
  return listDefaults(deps, clientId)
}

// ---- settings ----

export async function getSettings(deps: AlertsDeps, clientId: string): Promise<Settings> {
  const row = await deps.store.settings(clientId)
  return {
    routing: row ? (JSON.parse(row.routing) as Settings['routing']) : { warning: [], critical: [] },
    group_window_seconds: row?.group_window_seconds ?? DEFAULT_GROUP_WINDOW_S,
  }
}

export async function updateSettings(deps: AlertsDeps, clientId: string, patch: SettingsPatch): Promise<Settings> {
  await ensureDefaults(deps, clientId)
  const cur = await getSettings(deps, clientId)
  if (patch.routing) {
    await checkChannels(deps, clientId, patch.routing.warning, ['routing', 'warning'])
    await checkChannels(deps, clientId, patch.routing.critical, ['routing', 'critical'])
  }
  const next = { routing: patch.routing ?? cur.routing, group_window_seconds: patch.group_window_seconds ?? cur.group_window_seconds }
  await deps.store.saveSettings(clientId, JSON.stringify(next.routing), next.group_window_seconds)
  await deps.runtime.reload(clientId)
  return next
}
