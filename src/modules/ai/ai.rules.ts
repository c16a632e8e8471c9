import type { FieldStats, MetricsSummary } from '../metrics/metrics.summary.model'
import type { Gap } from './ai.hub-runs'
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
  /** when the hub itself was not running within [from, to]: a collector measures loss against the hub, so those are not the network's */
  hubGaps?(from: number, to: number): Gap[]
}

export const SUMMARY_HOURS = 24
export const TREND_HOURS = 168
export const SILENT_AFTER_MS = 15 * 60_000
/**
 * A finding about a window's figures needs at least this much of it: samples spanning half an
 * hour (first to last), and 12 of them. Less says too little to advise on.
 */
export const MIN_SPAN_MS = 30 * 60_000
export const MIN_SAMPLES = 12
/** samples this close to a hub restart are left out of the loss: the collector probes the hub, and it was away */
export const RESTART_MARGIN_MS = 5 * 60_000

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
const HOUR_MS = 3600_000

/** The stretch a summary's section really covers: its first sample to its last. */
interface Coverage {
  from: number
  to: number
  samples: number
  /** the hours asked for (the summary's window) */
  asked: number
}

/** What a section covers, or null when it is too little to judge (see MIN_SPAN_MS, MIN_SAMPLES). */
function coverage(section: MetricsSummary['hardware'], asked: number): Coverage | null {
  if (section.samples < MIN_SAMPLES || !section.first_at || !section.last_at) return null
  const from = Date.parse(section.first_at)
  const to = Date.parse(section.last_at)
  return to - from >= MIN_SPAN_MS ? { from, to, samples: section.samples, asked } : null
}

const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ')
/** the window in words, as it was covered: "the 3.5 hours from 2026-01-01 09:00 to 2026-01-01 12:30 UTC" */
function span(c: Coverage): string {
  const ms = c.to - c.from
  const length = ms < 2 * HOUR_MS ? `${Math.round(ms / 60_000)} minutes` : `${r1(ms / HOUR_MS)} hours`
  return `the ${length} from ${minute(c.from)} to ${minute(c.to)} UTC`
}
const window = (c: Coverage) => ({
  window_hours: c.asked,
  from: new Date(c.from).toISOString(),
  to: new Date(c.to).toISOString(),
  covered_hours: r1((c.to - c.from) / HOUR_MS),
  samples: c.samples,
})
/**
 * What the summary's data covers, for a language model's prompt and its findings' evidence: the
 * widest of its sections that has enough data to judge, or null when none has (no model call then).
 */
export function coveredWindow(s: MetricsSummary): { from: string; to: string; hours: number } | null {
  const c = [coverage(s.hardware, s.hours), coverage(s.network, s.hours)].filter((x) => x !== null).sort((a, b) => b.to - b.from - (a.to - a.from))[0]
  return c ? { from: new Date(c.from).toISOString(), to: new Date(c.to).toISOString(), hours: r1((c.to - c.from) / HOUR_MS) } : null
}

const hwCover = (s: MetricsSummary) => coverage(s.hardware, s.hours)
const netCover = (s: MetricsSummary) => coverage(s.network, s.hours)
const hw = (s: MetricsSummary, f: string): FieldStats | undefined => (hwCover(s) ? s.hardware.fields[f] : undefined)
const net = (s: MetricsSummary, f: string): FieldStats | undefined => (netCover(s) ? s.network.fields[f] : undefined)

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
  // how full it is now is a fact from the newest sample, not an average: no window needed
  const current = points.at(-1)?.avg ?? i.summary?.hardware.fields.disk_used_percent?.last ?? null
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
          recommendation: `The disk is ${r1(current)}% full and grew ${r1(slope * 24)} points a day over the last ${Math.round((points.at(-1)!.t - points[0]!.t) / HOUR_MS) + 1} hours: at this rate it is full in about ${r1(days)} days. Free space (old logs, caches, backups) or grow the volume before then.`,
          evidence: {
            field: 'disk_used_percent',
            window_hours: TREND_HOURS,
            from: new Date(points[0]!.t).toISOString(),
            to: new Date(points.at(-1)!.t + HOUR_MS).toISOString(),
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
  const c = hwCover(s)!
  return [
    {
      key: 'rules:cpu:sustained',
      category: 'cpu',
      severity: f.avg >= crit ? 'critical' : 'warning',
      recommendation: `CPU use averaged ${r1(f.avg)}% over ${span(c)} (p95 ${r1(f.p95 ?? f.avg)}%). Find the busiest processes, and add cores or spread the load if this is the normal workload.`,
      evidence: { field: 'cpu_percent', avg: r1(f.avg), p95: f.p95, max: f.max, ...window(c) },
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
      recommendation: `Memory use averaged ${r1(ram.avg)}% over ${span(hwCover(s)!)}. Look for a process that grows, lower cache sizes, or add RAM before the kernel starts killing processes.`,
      evidence: { field: 'ram_percent', avg: r1(ram.avg), p95: ram.p95, max: ram.max, ...window(hwCover(s)!) },
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
        recommendation: `Swap is in active use (avg ${r1(swap.avg)}%, moving between ${r1(swap.min)}% and ${r1(swap.max)}% over ${span(hwCover(s)!)}): the machine is short of RAM and slows down when it swaps. Reduce memory use or add RAM.`,
        evidence: { field: 'swap_percent', avg: r1(swap.avg), min: swap.min, max: swap.max, ...window(hwCover(s)!) },
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
      recommendation: `The CPU runs hot: ${r1(f.p95)} °C at p95 (max ${r1(f.max ?? f.p95)} °C) over ${span(hwCover(s)!)}. Clean the fans and heatsink, check airflow and thermal paste; hot CPUs throttle.`,
      evidence: { field: 'cpu_temp_c', p95: f.p95, max: f.max, avg: f.avg, ...window(hwCover(s)!) },
    },
  ]
}

/**
 * The loss over the covered window without the hours around the hub's own restarts: a collector
 * measures loss by connecting to the hub, so while the hub was away every probe failed. From the
 * hourly points, an hour touching a restart (with RESTART_MARGIN_MS either side) left out; null
 * when no restart falls in the window (the summary's figures stand), or nothing is left.
 */
function lossWithoutRestarts(i: RulesInput, s: MetricsSummary, c: Coverage) {
  const gaps = i.hubGaps?.(c.from - RESTART_MARGIN_MS, c.to) ?? []
  if (!gaps.length) return null
  const near = (t: number) => gaps.some((g) => t < g.to + RESTART_MARGIN_MS && t + HOUR_MS > g.from - RESTART_MARGIN_MS)
  const points = i.series('packet_loss_percent', s.hours).filter((p) => p.t + HOUR_MS > c.from && p.t <= c.to)
  const kept = points.filter((p) => !near(p.t))
  const restarts = gaps.map((g) => ({ from: new Date(g.from).toISOString(), to: new Date(g.to).toISOString() }))
  if (!kept.length) return { avg: null, max: null, kept: 0, restarts }
  return { avg: kept.reduce((a, p) => a + p.avg, 0) / kept.length, max: Math.max(...kept.map((p) => p.avg)), kept: kept.length, restarts }
}

function networkQuality(i: RulesInput, s: MetricsSummary): Finding[] {
  const out: Finding[] = []
  const c = netCover(s)
  if (!c) return out
  const rule = (
    field: string,
    key: string,
    [warn, crit]: readonly [number, number],
    text: (avg: number, p95: number, over: string) => string,
    f: FieldStats | undefined = net(s, field),
    extra: Record<string, unknown> = {},
  ) => {
    if (!f || f.avg === null || f.avg < warn) return
    out.push({
      key: `rules:network:${key}`,
      category: 'network',
      severity: f.avg >= crit ? 'critical' : 'warning',
      recommendation: text(r1(f.avg), r1(f.p95 ?? f.avg), span(c)),
      evidence: { field, avg: r1(f.avg), p95: f.p95, max: f.max, threshold: warn, ...window(c), ...extra },
    })
  }
  const loss = net(s, 'packet_loss_percent')
  const adjusted = loss && loss.avg !== null && loss.avg >= THRESHOLDS.lossAvg[0] ? lossWithoutRestarts(i, s, c) : null
  rule(
    'packet_loss_percent',
    'loss',
    THRESHOLDS.lossAvg,
    (a, _p, over) =>
      adjusted
        ? `Packet loss averaged ${a}% over ${over}, leaving out the ${adjusted.restarts.length === 1 ? 'hub restart' : `${adjusted.restarts.length} hub restarts`} in it (${adjusted.kept} hourly averages counted). Check cabling or Wi-Fi signal, the switch port and the uplink.`
        : `Packet loss averaged ${a}% over ${over}. Check cabling or Wi-Fi signal, the switch port and the uplink.`,
    adjusted ? { avg: adjusted.avg, max: adjusted.max, p95: null, min: null, last: null } : loss,
    adjusted ? { hub_restarts_left_out: adjusted.restarts, hours_counted: adjusted.kept } : {},
  )
  rule(
    'latency_avg_ms',
    'latency',
    THRESHOLDS.latencyAvg,
    (a, p, over) => `Network latency averaged ${a} ms (p95 ${p} ms) over ${over}. Look for a saturated uplink, bufferbloat or a congested Wi-Fi channel.`,
  )
  rule('dns_resolve_ms', 'dns', THRESHOLDS.dnsAvg, (a, _p, over) => `DNS lookups took ${a} ms on average over ${over}. Use a closer or local caching resolver.`)
  return out
}

function interfaceErrors(i: RulesInput, s: MetricsSummary): Finding[] {
  const c = netCover(s)
  if (!c) return []
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
      recommendation: `The network interfaces counted ${Math.round(errors)} errors and ${Math.round(drops)} dropped packets over ${span(c)}${ratio !== null ? ` (${r1(ratio * 100)}% of packets)` : ''}. Check the cable and switch port, duplex settings and the NIC driver.`,
      evidence: { errors: Math.round(errors), drops: Math.round(drops), packets: packets > 0 ? Math.round(packets) : null, ratio, ...window(c) },
    },
  ]
}

/** Runs every rule; the result holds at most one finding per rule key. */
export function runRules(i: RulesInput): Finding[] {
  const s = i.summary
  return [...availability(i), ...disk(i), ...(s ? [...cpu(s), ...memory(s), ...thermal(s), ...networkQuality(i, s), ...interfaceErrors(i, s)] : [])]
}
