import { signal } from '@preact/signals'
import { api } from './api'
import { onLive } from './live'

/**
 * How many alerts are firing for the current client, shown as a count in the top bar on every
 * page; null while unknown (no badge). `watchFiringAlerts` keeps it current: the count from the
 * API, read again whenever the live stream says an alert fired, resolved or was acknowledged.
 */
export const firingAlerts = signal<number | null>(null)

/** Events after which the count is read again (a burst of them is one read). */
const COUNT_EVENTS = ['alert.firing', 'alert.resolved', 'alert.acknowledged', 'reset'] as const

/**
 * Reads the firing count now and after every alert event until the returned function is called
 * (the shell calls it while someone is signed in). Reading the total rather than counting
 * events keeps it right across reconnects, other tabs and alerts that fire twice.
 */
export function watchFiringAlerts(): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null
  let stopped = false
  let seq = 0
  const read = async () => {
    const mine = ++seq
    try {
      const page = await api.get<{ total: number }>('/v1/alerts', { state: 'firing', limit: 1 })
      if (!stopped && mine === seq) firingAlerts.value = page.total
    } catch {
      // the badge stays as it was; the next event or page load reads again
    }
  }
  const soon = () => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => void read(), 300)
  }
  void read()
  const offs = COUNT_EVENTS.map((type) => onLive(type, soon))
  return () => {
    stopped = true
    if (timer) clearTimeout(timer)
    for (const off of offs) off()
    firingAlerts.value = null
  }
}

// ---- thresholds and firing alerts for the monitoring pages (device charts, dashboard cards) ----

interface RuleLike {
  id: string
  name: string
  kind: string
  enabled: boolean
  severity: 'warning' | 'critical'
  metric: string | null
  operator: '>' | '>=' | '<' | '<='
  threshold: number | null
  recovery_threshold: number | null
  scope: { type: 'all' | 'tag' | 'device'; value?: string | null }
  overrides: {
    device_id: string
    enabled: boolean | null
    threshold: number | null
    recovery_threshold: number | null
    severity: 'warning' | 'critical' | null
  }[]
}

/** One threshold a chart can draw as a line: the rule's value for this device (its override applied). */
export interface ThresholdLine {
  rule_id: string
  rule_name: string
  severity: 'warning' | 'critical'
  operator: '>' | '>=' | '<' | '<='
  /** the metric as the rule names it (a family part may be `*`) */
  metric: string
  value: number
  recovery: number | null
}

/** The threshold rules that watch this device, as lines (pure: the rules as GET /v1/alerts/rules answers). */
export function thresholdsOf(rules: RuleLike[], device: { id: string; tags?: string[] }): ThresholdLine[] {
  const out: ThresholdLine[] = []
  for (const r of rules) {
    if (r.kind !== 'threshold' || !r.enabled || !r.metric || r.threshold === null) continue
    if (r.scope.type === 'device' && r.scope.value !== device.id) continue
    if (r.scope.type === 'tag' && !(device.tags ?? []).includes(r.scope.value ?? '')) continue
    const o = r.overrides.find((x) => x.device_id === device.id)
    if (o?.enabled === false) continue
    const value = o?.threshold ?? r.threshold
    // a threshold moved alone keeps the rule's gap to its recovery point (docs/alerts.md)
    const gap = r.recovery_threshold === null ? null : r.recovery_threshold - r.threshold
    const recovery = o?.recovery_threshold ?? (gap === null ? null : value + gap)
    out.push({ rule_id: r.id, rule_name: r.name, severity: o?.severity ?? r.severity, operator: r.operator, metric: r.metric, value, recovery })
  }
  return out
}

/** Whether a rule's metric watches a chart's series: equal, or `*` standing for one part. */
export function metricWatches(metric: string, series: string): boolean {
  if (metric === series) return true
  if (!metric.includes('*')) return false
  const re = new RegExp(`^${metric.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.+?')}$`)
  return re.test(series)
}

/** The lines to draw on the chart of one series (e.g. 'cpu_percent', 'disk_partitions:/home'). */
export const thresholdsForSeries = (lines: ThresholdLine[], series: string) => lines.filter((l) => metricWatches(l.metric, series))

/** What a chart draws: for a series name, the lines of the rules watching it ("CPU busy > 80"). */
export function chartThresholds(lines: ThresholdLine[]): (series: string) => { value: number; label: string; severity: 'warning' | 'critical' }[] {
  const cache = new Map<string, { value: number; label: string; severity: 'warning' | 'critical' }[]>()
  return (series) => {
    let out = cache.get(series)
    if (!out) {
      out = thresholdsForSeries(lines, series).map((l) => ({ value: l.value, label: `${l.rule_name} ${l.operator} ${l.value}`, severity: l.severity }))
      cache.set(series, out)
    }
    return out
  }
}

/** The threshold lines of one device, read from the API (members may read rules). */
export async function deviceThresholds(device: { id: string; tags?: string[] }): Promise<ThresholdLine[]> {
  const { items } = await api.get<{ items: RuleLike[] }>('/v1/alerts/rules')
  return thresholdsOf(items, device)
}
