import type { RuleKind, Severity } from '../alerts.model'
import type { OverrideRow, RuleRow, SettingsRow, SilenceRow } from '../alerts.store'
import type { Operator, ThresholdParams } from './alerts.evaluator'
import { METRIC_SOURCES, type Selector, type SelectorCompiler } from './alerts.selectors'
import { inScope, type Scope, type ScopedDevice, type SilenceSpec } from './alerts.silence-windows'

/** One device's changes to a rule, merged with the rule's own values. */
interface Effective {
  enabled: boolean
  params: ThresholdParams
  severity: Severity
}

/** A rule as the runtime evaluates it: parsed once when rules change, never per sample. */
export interface CompiledRule {
  id: string
  clientId: string
  name: string
  kind: RuleKind
  severity: Severity
  metric: string | null
  selector: Selector | null
  params: ThresholdParams
  scope: Scope
  channelIds: string[]
  repeatMs: number | null
  notifyRecovery: boolean
  recoveryDelayMs: number
  offlineIntervals: number
  forecastHours: number
  overrides: Map<string, Effective>
}

/** Threshold rules that watch the same metric: its value is read once per observation for all of them. */
export interface MetricGroup {
  selector: Selector
  rules: CompiledRule[]
}

/** A client's rules and settings, indexed for the ingest path. */
export interface ClientRules {
  /** threshold rules per observation source, grouped by metric (a rule on a collector's own field is under every metric source) */
  bySource: Map<string, MetricGroup[]>
  offline: CompiledRule[]
  forecast: CompiledRule[]
  byId: Map<string, CompiledRule>
  /** some rule or silence scopes by tag: device tags must be known */
  needsTags: boolean
  routing: { warning: string[]; critical: string[] }
  groupWindowMs: number
  silences: SilenceSpec[]
  /** device → the gateway it is reached through */
  parents: Map<string, string>
}

export const scopeOf = (type: string, value: string | null): Scope =>
  type === 'tag' ? { type: 'tag', value: value ?? '' } : type === 'device' ? { type: 'device', value: value ?? '' } : { type: 'all', value: null }

export function compileRule(r: RuleRow, overrides: OverrideRow[], compile: SelectorCompiler): CompiledRule | null {
  let selector: Selector | null = null
  if (r.kind === 'threshold') {
    const s = r.metric ? compile(r.metric) : null
    if (!s || 'error' in s) return null
    selector = s
  }
  const threshold = r.threshold ?? 0
  const params: ThresholdParams = {
    operator: (r.operator ?? '>') as Operator,
    threshold,
    recovery: r.recovery_threshold ?? threshold,
    forMs: r.for_seconds * 1000,
  }
  const rule: CompiledRule = {
    id: r.id,
    clientId: r.client_id,
    name: r.name,
    kind: r.kind as RuleKind,
    severity: r.severity as Severity,
    metric: r.metric,
    selector,
    params,
    scope: scopeOf(r.scope_type, r.scope_value),
    channelIds: JSON.parse(r.channel_ids) as string[],
    repeatMs: r.repeat_seconds === null ? null : r.repeat_seconds * 1000,
    notifyRecovery: r.notify_recovery === 1,
    recoveryDelayMs: r.recovery_delay_seconds * 1000,
    offlineIntervals: r.offline_intervals ?? 5,
    forecastHours: r.forecast_hours ?? 48,
    overrides: new Map(),
  }
  for (const o of overrides) {
    const t = o.threshold ?? threshold
    // an override of the threshold alone moves the recovery point with it, keeping the rule's gap
    const gap = params.threshold - params.recovery
    rule.overrides.set(o.device_id, {
      enabled: o.enabled === null ? true : o.enabled === 1,
      severity: (o.severity ?? rule.severity) as Severity,
      params: {
        operator: params.operator,
        threshold: t,
        recovery: o.recovery_threshold ?? (o.threshold === null ? params.recovery : t - gap),
        forMs: o.for_seconds === null ? params.forMs : o.for_seconds * 1000,
      },
    })
  }
  return rule
}

/** Does the rule watch this device (scope, and not switched off for it)? */
export function applies(rule: CompiledRule, device: ScopedDevice): boolean {
  if (rule.overrides.size > 0 && rule.overrides.get(device.id)?.enabled === false) return false
  return inScope(rule.scope, device)
}

export const paramsFor = (rule: CompiledRule, deviceId: string): ThresholdParams =>
  rule.overrides.size > 0 ? (rule.overrides.get(deviceId)?.params ?? rule.params) : rule.params

export const severityFor = (rule: CompiledRule, deviceId: string): Severity =>
  rule.overrides.size > 0 ? (rule.overrides.get(deviceId)?.severity ?? rule.severity) : rule.severity

export const toSilenceSpec = (s: SilenceRow): SilenceSpec => ({
  id: s.id,
  scope: scopeOf(s.scope_type, s.scope_value),
  ruleId: s.rule_id,
  startsAt: s.starts_at,
  endsAt: s.ends_at,
  cron: s.cron,
  durationMs: s.duration_seconds === null ? null : s.duration_seconds * 1000,
  timezone: s.timezone,
})

export const DEFAULT_GROUP_WINDOW_S = 60

/** Indexes one client's rows. Disabled rules are left out: they evaluate nothing. */
export function indexClient(
  rules: RuleRow[],
  overrides: OverrideRow[],
  settings: SettingsRow | null,
  silences: SilenceRow[],
  parents: Map<string, string>,
  compile: SelectorCompiler,
): ClientRules {
  const cr: ClientRules = {
    bySource: new Map(),
    offline: [],
    forecast: [],
    byId: new Map(),
    needsTags: false,
    routing: settings ? (JSON.parse(settings.routing) as ClientRules['routing']) : { warning: [], critical: [] },
    groupWindowMs: (settings?.group_window_seconds ?? DEFAULT_GROUP_WINDOW_S) * 1000,
    silences: silences.map(toSilenceSpec),
    parents,
  }
  for (const row of rules) {
    if (row.enabled !== 1) continue
    const rule = compileRule(
      row,
      overrides.filter((o) => o.rule_id === row.id),
      compile,
    )
    if (!rule) continue
    cr.byId.set(rule.id, rule)
    if (rule.scope.type === 'tag') cr.needsTags = true
    if (rule.kind === 'offline') cr.offline.push(rule)
    else if (rule.kind === 'disk_forecast') cr.forecast.push(rule)
    else {
      const sources = rule.selector!.source ? [rule.selector!.source] : METRIC_SOURCES
      for (const source of sources) {
        let groups = cr.bySource.get(source)
        if (!groups) cr.bySource.set(source, (groups = []))
        const g = groups.find((x) => x.selector.metric === rule.metric)
        if (g) g.rules.push(rule)
        else groups.push({ selector: rule.selector!, rules: [rule] })
      }
    }
  }
  if (cr.silences.some((s) => s.scope.type === 'tag')) cr.needsTags = true
  return cr
}
