import { medianGap } from './metrics.buckets'
import { FIELDS, MINUTE_MS, type MetricKind } from './metrics.fields'
import type { MetricsDeps } from './metrics.service'

/** One value per minute over the last hour, the current minute last. */
export const SPARK_MINUTES = 60

/** The newest values the fleet overview shows, per kind. */
export const FLEET_FIGURES = {
  hardware: ['cpu_percent', 'ram_percent', 'disk_used_percent', 'cpu_temp_c'],
  network: ['download_mbps', 'upload_mbps', 'latency_avg_ms', 'packet_loss_percent'],
} as const

export type FleetFigureName = (typeof FLEET_FIGURES)[keyof typeof FLEET_FIGURES][number]

/** What the metrics say about one device for the fleet overview. */
export interface DeviceFigures {
  /** the newest value of each figure (null when never sent) */
  latest: Record<FleetFigureName, number | null>
  /** the newest sample's time (recorded_at), null when none */
  lastSampleAt: number | null
  /** its reporting interval: the median gap of its recent sample times; null with fewer than two */
  intervalMs: number | null
  /** cpu_percent per minute over the last hour (SPARK_MINUTES values, null for minutes without one) */
  spark: (number | null)[]
}

/** [index in the latest row ([seq, ts, ...hot]), name] of each figure of a kind */
const figureColumns = (kind: MetricKind) => FLEET_FIGURES[kind].map((name) => [FIELDS[kind].findIndex((f) => f.name === name) + 2, name] as const)
const COLUMNS = { hardware: figureColumns('hardware'), network: figureColumns('network') }

/** to one decimal: a sparkline is a picture, and 30,000 values of 17 digits are half a megabyte */
const tenth = (x: number) => Math.round(x * 10) / 10

/**
 * Every device's figures in a handful of statements whatever the fleet's size: the newest
 * sample per kind (one index descent each), the recent sample times, and the CPU minutes of the
 * last hour from the 1m tier, completed from raw samples for the minutes it has not rolled up.
 */
export function fleetFigures(deps: Pick<MetricsDeps, 'store' | 'series'>, seqs: number[], now: number): Map<number, DeviceFigures> {
  const out = new Map<number, DeviceFigures>()
  if (!seqs.length) return out
  const index = new Map<number, number>()
  const sums = new Float64Array(seqs.length * SPARK_MINUTES)
  const counts = new Float64Array(seqs.length * SPARK_MINUTES)
  const times: number[][] = seqs.map(() => [])
  seqs.forEach((s, i) => {
    index.set(s, i)
    const latest = {} as Record<FleetFigureName, number | null>
    for (const kind of ['hardware', 'network'] as const) for (const name of FLEET_FIGURES[kind]) latest[name] = null
    out.set(s, { latest, lastSampleAt: null, intervalMs: null, spark: [] })
  })

  for (const kind of ['hardware', 'network'] as const) {
    for (const row of deps.store.latestOf(kind, seqs)) {
      const f = out.get(row[0]!)
      if (!f) continue
      for (const [col, name] of COLUMNS[kind]) f.latest[name] = row[col] ?? null
      if (f.lastSampleAt === null || row[1]! > f.lastSampleAt) f.lastSampleAt = row[1]!
    }
  }
  for (const [seq, ts] of deps.series.recentTimesOf(seqs)) times[index.get(seq)!]?.push(ts)

  const first = Math.floor(now / MINUTE_MS) * MINUTE_MS - (SPARK_MINUTES - 1) * MINUTE_MS
  const end = first + SPARK_MINUTES * MINUTE_MS
  const rolled = Math.max(first, Math.min(end, deps.store.doneUntil('hardware')['1m']))
  const add = (seq: number, t: number, v: number, n: number) => {
    const i = index.get(seq)
    if (i === undefined) return
    const m = i * SPARK_MINUTES + Math.floor((t - first) / MINUTE_MS)
    sums[m] = sums[m]! + v * n
    counts[m] = counts[m]! + n
  }
  if (rolled > first) for (const [seq, t, avg] of deps.series.cpuMinutes(seqs, first, rolled)) add(seq, t, avg, 1)
  if (rolled < end) for (const [seq, t, v] of deps.series.cpuSamples(seqs, rolled, end)) add(seq, t, v, 1)

  seqs.forEach((s, i) => {
    const f = out.get(s)!
    f.intervalMs = medianGap(times[i]!)
    const spark: (number | null)[] = new Array(SPARK_MINUTES)
    for (let m = 0; m < SPARK_MINUTES; m++) {
      const k = i * SPARK_MINUTES + m
      spark[m] = counts[k] ? tenth(sums[k]! / counts[k]!) : null
    }
    f.spark = spark
  })
  return out
}
