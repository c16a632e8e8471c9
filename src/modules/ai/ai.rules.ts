import type { FieldStats, MetricsSummary } from '../metrics/metrics.summary.model'
import type { Category, Severity } from '../recommendations/recommendations.model'
import type { SeriesPoint } from './ai.metrics-source'

/**
 * The built-in, offline provider: fixed rules over a device's summary and hourly series.
 * Every finding names its numbers and window in `evidence`, and has a stable `key` (one per
 * rule), so the store can skip a finding already stored for the device within a day.
 */
export interface Finding {
  key: string
  category: Category
  severity: Severity
  recommendation: string
  evidence: Record<string, unknown>
}

export interface RulesInput {
  now: number
  device: { hostname: string | null; createdAt: number; lastSeenAt: number | null }
  /** summary over SUMMARY_HOURS, or null if the device sent nothing in that window */
  summary: MetricsSummary | null
  /** hourly points of a field over the last `hours` */
  series(field: string, hours: number): SeriesPoint[]
}

export const SUMMARY_HOURS = 24
export const TREND_HOURS = 168
export const SILENT_AFTER_MS = 15 * 60_000
/** below this many samples, averages say too little to advise on */
const MIN_SAMPLES = 3

export const THRESHOLDS = {
  cpuAvg: [85, 95],
  ramAvg: [90, 97],
  swapAvg: 50,
  swapRange: 20,
  tempP95: [80, 90],
  diskDaysLeft: [30, 7],
  diskUsed: [90, 97],
  lossAvg: [2, 10],
  latencyAvg: [150, 400],
  dnsAvg: [200, 1000],
  ifaceEvents: 100,
  ifaceRatio: [0.001, 0.01],
} as const

const r1 = (v: number) => Math.round(v * 10) / 10
const hw = (s: MetricsSummary, f: string): FieldStats | undefined => (s.hardware.samples >= MIN_SAMPLES ? s.hardware.fields[f] : undefined)
const net = (s: MetricsSummary, f: string): FieldStats | undefined => (s.network.samples >= MIN_SAMPLES ? s.network.fields[f] : undefined)
const window = (s: MetricsSummary) => ({ window_hours: s.hours, from: s.from, to: s.to })

/** Least-squares slope of avg over time, in units per hour. */
export function slopePerHour(points: SeriesPoint[]): number | null {
  if (points.length < 2) return null
  const xs = points.map((p) => p.t / 3600_000)
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length
  const my = points.reduce((a, p) => a + p.avg, 0) / points.length
  let num = 0
  let den = 0
  points.forEach((p, i) => {
    num += (xs[i]! - mx) * (p.avg - my)
    den += (xs[i]! - mx) ** 2
  })
  return den === 0 ? null : num / den
}

/** Growth of a cumulative counter over hourly points; a drop is a reset (reboot), not negative growth. */
export function counterGrowth(points: SeriesPoint[]): number | null {
  if (points.length < 2) return null
  let sum = 0
  for (let i = 1; i < points.length; i++) {
    const d = points[i]!.avg - points[i - 1]!.avg
    sum += d >= 0 ? d : points[i]!.avg
  }
  return sum
}

function availability(i: RulesInput): Finding[] {
  const last = i.device.lastSeenAt
  const since = last ?? i.device.createdAt
  const silentMs = i.now - since
  if (silentMs <= SILENT_AFTER_MS) return []
  const minutes = Math.floor(silentMs / 60_000)
  const what = last === null ? 'has never reported' : `has not reported for ${minutes >= 120 ? `${Math.floor(minutes / 60)} hours` : `${minutes} minutes`}`
  return [
    {
      key: 'rules:availability:silent',
      category: 'availability',
      severity: silentMs > 24 * 3600_000 ? 'critical' : 'warning',
      recommendation: `${i.device.hostname ?? 'The device'} ${what}. Check that the machine is up, that the collector service is running and that it can reach this server.`,
      evidence: { last_seen_at: last === null ? null : new Date(last).toISOString(), minutes_silent: minutes, threshold_minutes: SILENT_AFTER_MS / 60_000 },
    },
  ]
}

function disk(i: RulesInput): Finding[] {
  const points = i.series('disk_used_percent', TREND_HOURS)
  const current = points.at(-1)?.avg ?? (i.summary ? (hw(i.summary, 'disk_used_percent')?.last ?? null) : null)
  if (current === null || current === undefined) return []
  const slope = points.length >= 6 ? slopePerHour(points) : null
  if (slope !== null && slope > 0 && current < 100) {
    const days = (100 - current) / slope / 24
    const [warn, crit] = THRESHOLDS.diskDaysLeft
    if (days <= warn) {
      return [
        {
          key: 'rules:disk:fill',
          category: 'disk',
          severity: days <= crit ? 'critical' : 'warning',
          recommendation: `The disk is ${r1(current)}% full and grows ${r1(slope * 24)} points a day: at this rate it is full in about ${r1(days)} days. Free space (old logs, caches, backups) or grow the volume before then.`,
          evidence: {
            field: 'disk_used_percent',
            window_hours: TREND_HOURS,
            points: points.length,
            current_percent: r1(current),
            slope_percent_per_day: r1(slope * 24),
            days_until_full: r1(days),
          },
        },
      ]
    }
  }
  const [warn, crit] = THRESHOLDS.diskUsed
  if (current < warn) return []
  return [
    {
      key: 'rules:disk:high',
      category: 'disk',
      severity: current >= crit ? 'critical' : 'warning',
      recommendation: `The disk is ${r1(current)}% full. Free space or grow the volume; many services fail when a disk fills up.`,
      evidence: { field: 'disk_used_percent', current_percent: r1(current), threshold_percent: warn },
    },
  ]
}

function cpu(s: MetricsSummary): Finding[] {
  const f = hw(s, 'cpu_percent')
  const [warn, crit] = THRESHOLDS.cpuAvg
  if (!f || f.avg === null || f.avg < warn) return []
  return [
    {
      key: 'rules:cpu:sustained',
      category: 'cpu',
      severity: f.avg >= crit ? 'critical' : 'warning',
      recommendation: `CPU use averaged ${r1(f.avg)}% over the last ${s.hours} hours (p95 ${r1(f.p95 ?? f.avg)}%). Find the busiest processes, and add cores or spread the load if this is the normal workload.`,
      evidence: { field: 'cpu_percent', avg: r1(f.avg), p95: f.p95, max: f.max, samples: s.hardware.samples, ...window(s) },
    },
  ]
}

function memory(s: MetricsSummary): Finding[] {
  const out: Finding[] = []
  const ram = hw(s, 'ram_percent')
  const [warn, crit] = THRESHOLDS.ramAvg
  if (ram && ram.avg !== null && ram.avg >= warn) {
    out.push({
      key: 'rules:memory:pressure',
      category: 'memory',
      severity: ram.avg >= crit ? 'critical' : 'warning',
      recommendation: `Memory use averaged ${r1(ram.avg)}% over the last ${s.hours} hours. Look for a process that grows, lower cache sizes, or add RAM before the kernel starts killing processes.`,
      evidence: { field: 'ram_percent', avg: r1(ram.avg), p95: ram.p95, max: ram.max, ...window(s) },
    })
  }
  const swap = hw(s, 'swap_percent')
  if (swap && swap.avg !== null && swap.min !== null && swap.max !== null) {
    const range = swap.max - swap.min
    if (swap.avg >= THRESHOLDS.swapAvg || range >= THRESHOLDS.swapRange) {
      out.push({
        key: 'rules:memory:swap',
        category: 'memory',
        severity: 'warning',
        recommendation: `Swap is in active use (avg ${r1(swap.avg)}%, moving between ${r1(swap.min)}% and ${r1(swap.max)}% in ${s.hours} hours): the machine is short of RAM and slows down when it swaps. Reduce memory use or add RAM.`,
        evidence: { field: 'swap_percent', avg: r1(swap.avg), min: swap.min, max: swap.max, ...window(s) },
      })
    }
  }
  return out
}

function thermal(s: MetricsSummary): Finding[] {
  const f = hw(s, 'cpu_temp_c')
  const [warn, crit] = THRESHOLDS.tempP95
  if (!f || f.p95 === null || f.p95 < warn) return []
  return [
    {
      key: 'rules:thermal:cpu',
      category: 'thermal',
      severity: f.p95 >= crit ? 'critical' : 'warning',
      recommendation: `The CPU runs hot: ${r1(f.p95)} °C at p95 (max ${r1(f.max ?? f.p95)} °C) over ${s.hours} hours. Clean the fans and heatsink, check airflow and thermal paste; hot CPUs throttle.`,
      evidence: { field: 'cpu_temp_c', p95: f.p95, max: f.max, avg: f.avg, ...window(s) },
    },
  ]
}

function networkQuality(s: MetricsSummary): Finding[] {
  const out: Finding[] = []
  const rule = (field: string, key: string, [warn, crit]: readonly [number, number], text: (avg: number, p95: number) => string) => {
    const f = net(s, field)
    if (!f || f.avg === null || f.avg < warn) return
    out.push({
      key: `rules:network:${key}`,
      category: 'network',
      severity: f.avg >= crit ? 'critical' : 'warning',
      recommendation: text(r1(f.avg), r1(f.p95 ?? f.avg)),
      evidence: { field, avg: r1(f.avg), p95: f.p95, max: f.max, threshold: warn, ...window(s) },
    })
  }
  rule(
    'packet_loss_percent',
    'loss',
    THRESHOLDS.lossAvg,
    (a) => `Packet loss averaged ${a}% over ${s.hours} hours. Check cabling or Wi-Fi signal, the switch port and the uplink.`,
  )
  rule(
    'latency_avg_ms',
    'latency',
    THRESHOLDS.latencyAvg,
    (a, p) => `Network latency averaged ${a} ms (p95 ${p} ms) over ${s.hours} hours. Look for a saturated uplink, bufferbloat or a congested Wi-Fi channel.`,
  )
  rule('dns_resolve_ms', 'dns', THRESHOLDS.dnsAvg, (a) => `DNS lookups took ${a} ms on average over ${s.hours} hours. Use a closer or local caching resolver.`)
  return out
}

function interfaceErrors(i: RulesInput, s: MetricsSummary): Finding[] {
  const growth = (field: string) => {
    const g = counterGrowth(i.series(field, s.hours))
    if (g !== null) return g
    const f = net(s, field)
    return f && f.max !== null && f.min !== null ? f.max - f.min : 0
  }
  const errors = growth('errin') + growth('errout')
  const drops = growth('dropin') + growth('dropout')
  const events = errors + drops
  if (events < THRESHOLDS.ifaceEvents) return []
  const packets = growth('packets_recv') + growth('packets_sent')
  const ratio = packets > 0 ? events / packets : null
  const [warn, crit] = THRESHOLDS.ifaceRatio
  if (ratio !== null && ratio < warn) return []
  return [
    {
      key: 'rules:network:interface_errors',
      category: 'network',
      severity: ratio !== null && ratio >= crit ? 'critical' : 'warning',
      recommendation: `The network interfaces counted ${Math.round(errors)} errors and ${Math.round(drops)} dropped packets in ${s.hours} hours${ratio !== null ? ` (${r1(ratio * 100)}% of packets)` : ''}. Check the cable and switch port, duplex settings and the NIC driver.`,
      evidence: { errors: Math.round(errors), drops: Math.round(drops), packets: packets > 0 ? Math.round(packets) : null, ratio, ...window(s) },
    },
  ]
}

/** Runs every rule; the result holds at most one finding per rule key. */
export function runRules(i: RulesInput): Finding[] {
  const s = i.summary
  return [...availability(i), ...disk(i), ...(s ? [...cpu(s), ...memory(s), ...thermal(s), ...networkQuality(s), ...interfaceErrors(i, s)] : [])]
}
