import { DASH, duration } from '../lib/format'
import type { AlertView, Operator, Rule } from './types'

/**
 * The metrics a rule can watch, as the picker offers them, and how their values read. A rule's
 * `metric` is a sample field (`cpu_percent`) or a part of a nested family (`disk_partitions:/home`,
 * `interfaces:eth0:download_mbps`, `*` for every part): docs/alerts.md lists them.
 */

export type Unit = 'percent' | 'celsius' | 'mbps' | 'ms' | 'dbm' | 'rpm' | 'bytes_per_s' | 'bool' | 'hours' | 'plain'

export interface MetricChoice {
  /** the picker's value: a field name, or a family with its part to fill (`disk_partitions:`) */
  id: string
  label: string
  unit: Unit
  /** a family: the rule names one part (or * for each) */
  family?: { part: string; hint: string; suffix?: string }
}

export const METRIC_CHOICES: MetricChoice[] = [
  { id: 'cpu_percent', label: 'CPU used', unit: 'percent' },
  { id: 'ram_percent', label: 'Memory used', unit: 'percent' },
  { id: 'swap_percent', label: 'Swap used', unit: 'percent' },
  { id: 'disk_used_percent', label: 'Fullest disk', unit: 'percent' },
  {
    id: 'disk_partitions',
    label: 'Disk partition used',
    unit: 'percent',
    family: { part: 'Partition', hint: 'A mount point such as /home, or * for every partition.' },
  },
  { id: 'cpu_temp_c', label: 'CPU temperature', unit: 'celsius' },
  {
    id: 'temperatures',
    label: 'Temperature sensor',
    unit: 'celsius',
    family: { part: 'Sensor', hint: 'A sensor chip such as coretemp or nvme, or * for every sensor.' },
  },
  { id: 'fans', label: 'Fan speed', unit: 'rpm', family: { part: 'Fan', hint: 'A fan such as cpu_fan, or * for every fan.' } },
  { id: 'cpu_per_core', label: 'One CPU core', unit: 'percent', family: { part: 'Core', hint: 'A core number such as 0, or * for every core.' } },
  { id: 'gpu_load', label: 'GPU load', unit: 'percent' },
  { id: 'download_mbps', label: 'Download', unit: 'mbps' },
  { id: 'upload_mbps', label: 'Upload', unit: 'mbps' },
  { id: 'latency_avg_ms', label: 'Latency', unit: 'ms' },
  { id: 'packet_loss_percent', label: 'Packet loss', unit: 'percent' },
  { id: 'dns_resolve_ms', label: 'DNS resolve time', unit: 'ms' },
  {
    id: 'interfaces:download_mbps',
    label: 'Interface download',
    unit: 'mbps',
    family: { part: 'Interface', hint: 'An interface such as eth0, or * for every interface.', suffix: 'download_mbps' },
  },
  {
    id: 'interfaces:upload_mbps',
    label: 'Interface upload',
    unit: 'mbps',
    family: { part: 'Interface', hint: 'An interface such as eth0, or * for every interface.', suffix: 'upload_mbps' },
  },
  {
    id: 'interfaces:is_up',
    label: 'Interface up (1) or down (0)',
    unit: 'bool',
    family: { part: 'Interface', hint: 'An interface such as eth0, or * for every interface. Alert when below 1.', suffix: 'is_up' },
  },
  { id: 'wifi:signal_dbm', label: 'Wi-Fi signal', unit: 'dbm' },
  { id: 'other', label: 'Another field (type its name)', unit: 'plain' },
]

const BY_ID = new Map(METRIC_CHOICES.map((c) => [c.id, c]))

/** A rule's metric taken apart for the picker: which choice, its part, or the name typed. */
export function splitMetric(metric: string | null): { choice: string; part: string; other: string } {
  if (!metric) return { choice: 'cpu_percent', part: '', other: '' }
  if (BY_ID.has(metric) && !BY_ID.get(metric)!.family) return { choice: metric, part: '', other: '' }
  const [family, ...rest] = metric.split(':')
  if (family === 'interfaces' && rest.length >= 2) {
    const suffix = rest[rest.length - 1]!
    const id = `interfaces:${suffix}`
    if (BY_ID.has(id)) return { choice: id, part: rest.slice(0, -1).join(':'), other: '' }
  }
  const choice = family ? BY_ID.get(family) : undefined
  if (choice?.family && !choice.family.suffix && rest.length) return { choice: choice.id, part: rest.join(':'), other: '' }
  return { choice: 'other', part: '', other: metric }
}

/** The metric name the API takes from the picker's parts. */
export function joinMetric(choice: string, part: string, other: string): string {
  if (choice === 'other') return other.trim()
  const c = BY_ID.get(choice)
  if (!c?.family) return choice
  const p = part.trim() || '*'
  return c.family.suffix ? `interfaces:${p}:${c.family.suffix}` : `${c.id}:${p}`
}

/** The unit of a metric's values. */
export function unitOf(metric: string | null): Unit {
  if (!metric) return 'plain'
  const { choice } = splitMetric(metric)
  if (choice !== 'other') return BY_ID.get(choice)!.unit
  if (/percent|_pct$/.test(metric)) return 'percent'
  if (/_c$|temp/.test(metric)) return 'celsius'
  if (/mbps/.test(metric)) return 'mbps'
  if (/_ms$/.test(metric)) return 'ms'
  if (/dbm/.test(metric)) return 'dbm'
  if (/bytes_per_s/.test(metric)) return 'bytes_per_s'
  return 'plain'
}

const SUFFIX: Record<Unit, string> = {
  percent: ' %',
  celsius: ' °C',
  mbps: ' Mbps',
  ms: ' ms',
  dbm: ' dBm',
  rpm: ' RPM',
  bytes_per_s: ' B/s',
  bool: '',
  hours: ' h',
  plain: '',
}

/** A value in its unit: 93.4 → "93.4 %"; null → "—". */
export function formatValue(value: number | null | undefined, unit: Unit): string {
  if (value === null || value === undefined || Number.isNaN(value)) return DASH
  const abs = Math.abs(value)
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2
  return `${value.toLocaleString(undefined, { maximumFractionDigits: digits })}${SUFFIX[unit]}`
}

/** The words for a metric, with its part: "Disk partition used /home", "CPU used". */
export function metricLabel(metric: string | null, series = ''): string {
  if (!metric) return ''
  const { choice, part, other } = splitMetric(metric)
  if (choice === 'other') return other
  const c = BY_ID.get(choice)!
  if (!c.family) return c.label
  if (part === '*') return series ? `${c.label} ${series}` : `${c.label} (any ${c.family.part.toLowerCase()})`
  return `${c.label} ${part}`
}

const OP_WORDS: Record<Operator, string> = { '>': 'above', '>=': 'at or above', '<': 'below', '<=': 'at or below' }

/** A rule in one line: "CPU used above 90 % for 5 min (resolves at 85 %)". */
export function ruleSummary(
  rule: Pick<Rule, 'kind' | 'metric' | 'operator' | 'threshold' | 'recovery_threshold' | 'for_seconds' | 'offline_intervals' | 'forecast_hours'>,
): string {
  if (rule.kind === 'offline') return `No data for ${rule.offline_intervals ?? 5} reporting intervals`
  if (rule.kind === 'disk_forecast') return `A disk predicted full within ${rule.forecast_hours ?? 48} h`
  const unit = unitOf(rule.metric)
  let s = `${metricLabel(rule.metric)} ${OP_WORDS[rule.operator]} ${formatValue(rule.threshold, unit)}`
  if (rule.for_seconds > 0) s += ` for ${duration(rule.for_seconds)}`
  if (rule.recovery_threshold !== null && rule.recovery_threshold !== rule.threshold) s += ` (resolves at ${formatValue(rule.recovery_threshold, unit)})`
  return s
}

/** A forecast's alert: its value is the hours left, its threshold the hours ahead it looks. */
const isForecast = (a: Pick<AlertView, 'metric' | 'context'>) => a.metric === null && !!a.context && 'hours_left' in a.context

/** An alert's value against its threshold in words: "93.4 % (threshold 90 %)", "12 h left (within 48 h)". */
export function valueVsThreshold(a: Pick<AlertView, 'metric' | 'context' | 'value' | 'threshold'>): { value: string; threshold: string } {
  if (isForecast(a))
    return { value: a.value === null ? 'full soon' : `${formatValue(a.value, 'hours')} left`, threshold: `full within ${formatValue(a.threshold, 'hours')}` }
  if (a.metric === null)
    return { value: a.value === null ? 'no data' : formatValue(a.value, 'plain'), threshold: `${formatValue(a.threshold, 'plain')} intervals without data` }
  const unit = unitOf(a.metric)
  return { value: formatValue(a.value, unit), threshold: formatValue(a.threshold, unit) }
}

/** What an alert watches: "Disk partition used /home", or the rule's own name for offline and forecasts. */
export function alertSubject(a: Pick<AlertView, 'metric' | 'series' | 'rule'>): string {
  return a.metric ? metricLabel(a.metric, a.series) : a.series ? `${a.rule.name} (${a.series})` : a.rule.name
}
