import type { AlertView } from './types'

/**
 * The alerts open now as the page keeps them: loaded once, then patched by the live stream's
 * alert.firing / alert.acknowledged (upsert) and alert.resolved (gone from "now").
 */
export function applyAlertEvent(list: AlertView[], type: string, alert: AlertView): AlertView[] {
  const rest = list.filter((a) => a.id !== alert.id)
  if (type === 'alert.resolved' || alert.state === 'resolved') return rest
  return sortOpen([alert, ...rest])
}

const SEVERITY_RANK = { critical: 0, warning: 1 } as const

/** The most urgent first: firing before pending, critical before warning, unacknowledged first, newest first. */
export function sortOpen(list: AlertView[]): AlertView[] {
  return [...list].sort(
    (a, b) =>
      Number(a.state !== 'firing') - Number(b.state !== 'firing') ||
      SEVERITY_RANK[a.rule.severity] - SEVERITY_RANK[b.rule.severity] ||
      Number(a.acknowledged !== null) - Number(b.acknowledged !== null) ||
      Date.parse(b.fired_at ?? b.started_at) - Date.parse(a.fired_at ?? a.started_at),
  )
}

export type RangeKey = '24h' | '7d' | '30d' | 'all'
export const RANGES: { value: RangeKey; label: string; hours: number | null }[] = [
  { value: '24h', label: 'Last 24 hours', hours: 24 },
  { value: '7d', label: 'Last 7 days', hours: 24 * 7 },
  { value: '30d', label: 'Last 30 days', hours: 24 * 30 },
  { value: 'all', label: 'All time', hours: null },
]

/** The history's query from the page's URL (state, device, rule, range, page); unknown values fall back. */
export function historyQuery(q: URLSearchParams, now: number, pageSize: number): Record<string, string | number> {
  const out: Record<string, string | number> = { limit: pageSize }
  const state = q.get('state')
  if (state === 'pending' || state === 'firing' || state === 'resolved') out.state = state
  const device = q.get('device')
  if (device) out.device_id = device
  const rule = q.get('rule')
  if (rule) out.rule_id = rule
  const range = RANGES.find((r) => r.value === q.get('range')) ?? RANGES[1]!
  if (range.hours !== null) out.since = new Date(now - range.hours * 3_600_000).toISOString()
  const page = Math.max(1, Math.floor(Number(q.get('page')) || 1))
  out.offset = (page - 1) * pageSize
  return out
}

/**
 * The moment an alert is known by and the words for it, one rule for every page: since it fired
 * (fired_at), or, while it has not fired, since it went pending (started_at).
 */
export function alertSince(a: Pick<AlertView, 'state' | 'started_at' | 'fired_at'>): { label: string; iso: string } {
  if (a.fired_at) return { label: a.state === 'firing' ? 'Firing since' : 'Fired', iso: a.fired_at }
  return { label: a.state === 'pending' ? 'Pending since' : 'Pending from', iso: a.started_at }
}

/** How long an alert lasted (or has lasted): seconds from when it started to when it resolved (or now). */
export function alertSeconds(a: Pick<AlertView, 'started_at' | 'fired_at' | 'resolved_at'>, now: number): number {
  const from = Date.parse(a.fired_at ?? a.started_at)
  const to = a.resolved_at ? Date.parse(a.resolved_at) : now
  return Math.max(0, Math.round((to - from) / 1000))
}
