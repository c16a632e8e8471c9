import { toIso } from '../../lib/clock'
import { describeMetric } from './alerts.metric'
import type { AlertNotification, Severity } from './alerts.model'
import type { CompiledRule } from './alerts.rules'
import type { AlertRow } from './alerts.store'

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

const round = (n: number | null) => (n === null ? '—' : String(Math.round(n * 10) / 10))
const WORD: Record<string, string> = { '>': 'above', '>=': 'at or above', '<': 'below', '<=': 'at or below' }

/** "disk / above 90" / "offline" / "disk full within 48 h": what the rule says, for one alert. */
export function condition(rule: CompiledRule, alert: Pick<AlertRow, 'series' | 'threshold'>): string {
  if (rule.kind === 'offline') return 'offline'
  if (rule.kind === 'disk_forecast') return `disk full within ${rule.forecastHours} h`
  return `${describeMetric(rule.metric ?? '', alert.series)} ${WORD[rule.params.operator]} ${round(alert.threshold)}`
}

function line(item: NoticeItem, now: number): string {
  const a = item.alert
  const since = a.fired_at ?? a.started_at
  const value = item.rule.kind === 'offline' ? `no data since ${toIso(contextNumber(a, 'last_seen_at') ?? since)}` : `value ${round(a.value)}`
  const parts = [`${item.device.name}: ${condition(item.rule, a)} (${value})`]
  if (item.kind === 'resolved') parts.push(`resolved at ${toIso(a.resolved_at ?? now)}, after ${minutes((a.resolved_at ?? now) - since)}`)
  else parts.push(`since ${toIso(since)}`)
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
  const title =
    items.length === 1 ? `${head}: ${condition(first.rule, first.alert)} on ${first.device.name}` : `${head}: ${first.rule.name} on ${items.length} devices`
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
