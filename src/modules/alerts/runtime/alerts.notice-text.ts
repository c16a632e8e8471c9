import { toIso } from '../../../lib/clock'
import type { AlertNotification, Severity } from '../alerts.model'
import type { AlertRow } from '../alerts.store'
import { paramsFor, type CompiledRule } from './alerts.compiled-rules'
import { recovered, type Operator } from './alerts.evaluator'
import { metricWords } from './alerts.selectors'

export type NoticeKind = 'firing' | 'repeat' | 'resolved' | 'acknowledged'

/** One alert's part of a notice. */
export interface NoticeItem {
  kind: NoticeKind
  alert: AlertRow
  rule: CompiledRule
  device: { id: string; name: string }
  /** offline alerts held behind this device (a gateway): listed in its notice */
  behind: string[]
}

/** the selector's own words for its series, else the metric's */
const wordsOf = (rule: CompiledRule, series: string) => rule.selector?.words?.(series) ?? metricWords(rule.metric ?? '', series)

/** the source's own sentence for one alert (it names the subject), else null: the rule's words */
function sentence(item: NoticeItem): string | null {
  const say = wordsOf(item.rule, item.alert.series).sentence
  if (!say) return null
  const ctx = item.alert.context ? (JSON.parse(item.alert.context) as { sample?: { values?: Record<string, unknown> } }) : null
  return say(item.kind === 'resolved' ? 'resolved' : 'firing', item.device.name, item.alert.value, ctx?.sample?.values ?? {})
}

const round = (n: number) => String(Math.round(n * 10) / 10)
const WORD: Record<Operator, string> = { '>': 'above', '>=': 'at or above', '<': 'below', '<=': 'at or below' }
/** the healthy side of each operator, as `recovered` reads it: `> 80` is back at 80 or below */
const BACK: Record<Operator, string> = { '>': 'at or below', '>=': 'below', '<': 'at or above', '<=': 'above' }

/** "CPU used above 90 %" / "offline" / "disk predicted full within 48 h": what the rule says, for one alert. */
export function condition(rule: CompiledRule, alert: Pick<AlertRow, 'series' | 'threshold' | 'value'>): string {
  if (rule.kind === 'offline') return 'offline'
  if (rule.kind === 'disk_forecast') return `disk predicted full within ${rule.forecastHours} h`
  const w = wordsOf(rule, alert.series)
  if (w.firing) return w.firing(alert.value)
  return `${w.label} ${WORD[rule.params.operator]} ${alert.threshold === null ? '—' : round(alert.threshold) + w.unit}`
}

/** "CPU used back at or below 80 % (now 52.8 %)": a recovery in words, with the recovery threshold when the rule has one. */
function recoveredWords(item: NoticeItem): string {
  const { rule, alert: a } = item
  if (rule.kind === 'offline') return 'reporting again'
  if (rule.kind === 'disk_forecast') return `no disk predicted full within ${round(rule.forecastHours * 1.5)} h any more`
  const w = wordsOf(rule, a.series)
  const p = paramsFor(rule, a.device_id)
  // closed without a healthy value: the series stopped being reported, or the rule changed
  if (a.value === null || !recovered(p, a.value)) return `${w.label}: closed without a recovered value (no longer reported, or the rule changed)`
  if (w.recovered) return w.recovered(a.value)
  return `${w.label} back ${BACK[p.operator]} ${round(p.recovery)}${w.unit} (now ${round(a.value)}${w.unit})`
}

function firingWords(item: NoticeItem): string {
  const { rule, alert: a } = item
  if (rule.kind === 'offline') return `offline (no data since ${toIso(contextNumber(a, 'last_seen_at') ?? a.fired_at ?? a.started_at)})`
  if (rule.kind === 'disk_forecast')
    return `${condition(rule, a)} (${a.value === null ? 'it is full' : `${round(a.value)} h left at the trend of the last day`})`
  const w = wordsOf(rule, a.series)
  if (w.firing) return w.firing(a.value)
  const unit = w.unit
  return `${condition(rule, a)} (now ${a.value === null ? '—' : round(a.value) + unit})`
}

function line(item: NoticeItem, now: number): string {
  const a = item.alert
  // durations count from the firing, as the API's fired_at: a pending period is not part of the outage
  const since = a.fired_at ?? a.started_at
  const parts: string[] = []
  const own = sentence(item)
  if (item.kind === 'resolved') {
    parts.push(own ?? `${item.device.name}: ${recoveredWords(item)}`)
    parts.push(`resolved at ${toIso(a.resolved_at ?? now)}, ${minutes((a.resolved_at ?? now) - since)} after it fired`)
  } else {
    parts.push(own ?? `${item.device.name}: ${firingWords(item)}`)
    parts.push(`firing since ${toIso(since)}`)
  }
  if (item.behind.length) parts.push(`${item.behind.length} device(s) behind it are unreachable too: ${item.behind.join(', ')}`)
  return parts.join('; ')
}

function contextNumber(a: AlertRow, key: string): number | null {
  if (!a.context) return null
  const v = (JSON.parse(a.context) as Record<string, unknown>)[key]
  return typeof v === 'string' ? Date.parse(v) : null
}

const minutes = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`)

const HEAD: Record<NoticeKind, (s: Severity) => string> = {
  firing: (s) => s.toUpperCase(),
  repeat: (s) => `STILL ${s.toUpperCase()}`,
  resolved: () => 'RESOLVED',
  acknowledged: () => 'ACKNOWLEDGED',
}

/** One notice for items of the same rule and kind (one alert, or a group of devices). */
export function buildNotice(items: NoticeItem[], now: number, siteUrl: string | null): AlertNotification {
  const first = items[0]!
  const severity = first.alert.severity as Severity
  const head = HEAD[first.kind](severity)
  const base = siteUrl ? siteUrl.replace(/\/$/, '') : null
  const what = first.kind === 'resolved' ? recoveredWords(first) : condition(first.rule, first.alert)
  const own = items.length === 1 ? sentence(first) : null
  const title = own
    ? `${head}: ${own}`
    : items.length === 1
      ? `${head}: ${what} on ${first.device.name}`
      : `${head}: ${first.rule.name} on ${items.length} devices`
  const body = [`Rule: ${first.rule.name} (${severity})`, ...items.map((i) => line(i, now))]
  if (first.kind === 'acknowledged' && first.alert.ack_by)
    body.push(`Acknowledged by ${first.alert.ack_by}${first.alert.ack_note ? `: ${first.alert.ack_note}` : ''}`)
  const top = items.length === 1 ? topProcesses(first.alert) : null
  if (top) body.push(`Top processes: ${top}`)
  return {
    event: first.kind === 'repeat' ? 'firing' : first.kind,
    severity,
    title,
    body: body.join('\n'),
    url: base ? (items.length === 1 ? `${base}/devices/${first.device.id}` : `${base}/alerts`) : null,
    devices: items.map((i) => i.device),
    rule: { id: first.rule.id, name: first.rule.name },
    alert_ids: items.map((i) => i.alert.id),
    timestamp: toIso(now),
  }
}

function topProcesses(a: AlertRow): string | null {
  if (!a.context) return null
  const ctx = JSON.parse(a.context) as { top_processes?: { cpu?: { name: string; cpu_percent: number }[] } }
  const cpu = ctx.top_processes?.cpu
  if (!Array.isArray(cpu) || cpu.length === 0) return null
  return cpu
    .slice(0, 3)
    .map((p) => `${p.name} ${p.cpu_percent}%`)
    .join(', ')
}
