import { joinMetric } from './metrics'
import type { Rule, RuleKind } from './types'

/** Durations as a number and a unit in the form, seconds in the API. */
export const UNITS = [
  { value: '1', label: 'seconds' },
  { value: '60', label: 'minutes' },
  { value: '3600', label: 'hours' },
]

/** The largest unit that shows a duration whole: 300 → 5 minutes, 90 → 90 seconds. */
export function splitSeconds(s: number): { amount: number; unit: string } {
  if (s > 0 && s % 3600 === 0) return { amount: s / 3600, unit: '3600' }
  if (s > 0 && s % 60 === 0) return { amount: s / 60, unit: '60' }
  return { amount: s, unit: '1' }
}

const num = (v: unknown): number | null => {
  const t = String(v ?? '').trim()
  if (!t) return null
  const n = Number(t)
  return Number.isFinite(n) ? n : Number.NaN
}

/**
 * The rule as the API takes it (POST, or PATCH with every field) from the form's values. A
 * number typed wrong becomes NaN, which the API refuses naming the field; an empty optional
 * number is null.
 */
export function ruleFromForm(d: FormData, kind: RuleKind): Record<string, unknown> {
  const seconds = (name: string) => {
    const n = num(d.get(name))
    return n === null ? 0 : Math.round(n * Number(d.get(`${name}_unit`) ?? 1))
  }
  const scopeType = String(d.get('scope') ?? 'all') as 'all' | 'tag' | 'device'
  const scopeValue = scopeType === 'tag' ? String(d.get('scope_tag') ?? '').trim() : scopeType === 'device' ? String(d.get('scope_device') ?? '') : null
  const repeat = String(d.get('repeat_seconds') ?? '')
  const body: Record<string, unknown> = {
    name: String(d.get('name') ?? '').trim(),
    enabled: d.get('enabled') !== null,
    severity: String(d.get('severity') ?? 'warning'),
    scope: scopeType === 'all' ? { type: 'all' } : { type: scopeType, value: scopeValue },
    channel_ids: d.getAll('channel_ids').map(String),
    repeat_seconds: repeat ? Number(repeat) : null,
    notify_recovery: d.get('notify_recovery') !== null,
    recovery_delay_seconds: seconds('recovery_delay_seconds'),
  }
  if (kind === 'threshold') {
    body.metric = joinMetric(String(d.get('metric') ?? ''), String(d.get('metric_part') ?? ''), String(d.get('metric_other') ?? ''))
    body.operator = String(d.get('operator') ?? '>')
    body.threshold = num(d.get('threshold'))
    body.recovery_threshold = num(d.get('recovery_threshold'))
    body.for_seconds = seconds('for_seconds')
  }
  if (kind === 'offline') body.offline_intervals = num(d.get('offline_intervals'))
  if (kind === 'disk_forecast') body.forecast_hours = num(d.get('forecast_hours'))
  return body
}

/**
 * The rule or silence form's input for a path of the API's body: scope.value (or the scope itself)
 * is the tag box or the device list, whichever the scope chosen shows; a list's item (channel_ids.1)
 * is the list; any other field is the input of its name.
 */
export function scopedField(path: (string | number)[], scope: 'all' | 'tag' | 'device'): string | null {
  const head = path[0]
  if (typeof head !== 'string') return null
  if (head === 'scope') return scope === 'tag' ? 'scope_tag' : scope === 'device' ? 'scope_device' : 'scope'
  return head
}

/** A new rule's starting values: a CPU threshold for every device. */
export const NEW_RULE: Omit<Rule, 'id' | 'created_at' | 'updated_at' | 'scope_device_missing'> = {
  kind: 'threshold',
  name: '',
  enabled: true,
  severity: 'warning',
  metric: 'cpu_percent',
  operator: '>',
  threshold: null,
  recovery_threshold: null,
  for_seconds: 300,
  offline_intervals: 5,
  forecast_hours: 48,
  scope: { type: 'all' },
  channel_ids: [],
  repeat_seconds: null,
  notify_recovery: true,
  recovery_delay_seconds: 0,
  builtin: null,
  overrides: [],
}

/** A rule's scope in words, devices named. */
export function scopeWords(scope: Rule['scope'], deviceName: (id: string) => string): string {
  if (scope.type === 'tag') return `Devices tagged ${scope.value ?? ''}`
  if (scope.type === 'device') return deviceName(scope.value ?? '')
  return 'All devices'
}
