import { medianGap } from './metrics.buckets'
import { MINUTE_MS } from './metrics.fields'
import type { FleetMemory } from './metrics.fleet.memory'
import type { MetricsStore } from './metrics.store'
import type { SparkMinutes } from './metrics.fleet.memory'
import type { SeriesStore } from './metrics.series.store'

type Awaitable<T> = T | Promise<T>

/**
 * What the fleet figures read, on either engine (SQLite's series store, answering at once, or
 * metrics.fleet.store.pg.ts), with the same answers; see SeriesStore for each read.
 */
export interface FleetReads {
  /** each device's CPU minutes kept between answers */
  sparks: FleetMemory['sparks']
  /** each device's reporting interval, at once (the devices' status sweep cannot wait) */
  intervals(seqs: number[], now: number): Map<number, number | null>
  fleetLatest(seqs: number[]): Awaitable<(number | null)[][]>
  cpuMinutes(seqs: number[], from: number, to: number): Awaitable<[number, number, number][]>
  cpuSamples(seqs: number[], from: number, to: number): Awaitable<[number, number, number][]>
  /** how far the hardware 1m tier is rolled up */
  rolledUntil(): Awaitable<number>
}

/** SQLite's series store as the fleet's reads: the same statements, answering at once. */
export function sqliteFleetReads(series: SeriesStore, store: MetricsStore): FleetReads {
  return {
    sparks: series.sparks,
    intervals: (seqs, now) => measuredIntervals(series, seqs, now),
    fleetLatest: series.fleetLatest,
    cpuMinutes: series.cpuMinutes,
    cpuSamples: series.cpuSamples,
    rolledUntil: () => store.doneUntil('hardware')['1m'],
  }
}

/** One value per minute over the last hour, the current minute last. */
export const SPARK_MINUTES = 60

/** The newest values the fleet overview shows. */
export interface LatestFigures {
  cpu_percent: number | null
  ram_percent: number | null
  disk_used_percent: number | null
  cpu_temp_c: number | null
  download_mbps: number | null
  upload_mbps: number | null
  latency_avg_ms: number | null
  packet_loss_percent: number | null
}

/** What the metrics say about one device for the fleet overview. */
export interface DeviceFigures {
  /** the newest value of each figure (null when never sent) */
  latest: LatestFigures
  /** the newest sample's time (recorded_at), null when none */
  lastSampleAt: number | null
  /** its reporting interval: the median gap of its recent sample times; null with fewer than two */
  intervalMs: number | null
  /** cpu_percent per minute over the last hour, whole percent (SPARK_MINUTES values, null for minutes without one) */
  spark: (number | null)[]
}

const NO_FIGURES: LatestFigures = {
  cpu_percent: null,
  ram_percent: null,
  disk_used_percent: null,
  cpu_temp_c: null,
  download_mbps: null,
  upload_mbps: null,
  latency_avg_ms: null,
  packet_loss_percent: null,
}

/**
 * How long a measured interval is trusted: a collector's interval changes when someone edits its
 * configuration, and a status judged by the old one for a few minutes does no harm.
 */
const INTERVAL_TTL_MS = 5 * MINUTE_MS

/** Minutes re-read from the 1m tier when it has moved on: the rollup re-rolls its last buckets for stragglers. */
const REREAD_MINUTES = 3
/** A device's minutes are read whole again after this long, picking up late samples re-rolled further back. */
const FULL_READ_MS = 10 * MINUTE_MS

/**
 * Each device's CPU minutes in [first, rolled) from the 1m tier. Those rows change only when the
 * rollup moves on (once a minute), and an hour of them for 500 devices is 30,000 wide rows, so
 * they are kept per device and only what the rollup added since is read: one statement per
 * distinct range, nearly always one.
 */
async function tierMinutes(store: FleetReads, seqs: number[], first: number, rolled: number, now: number): Promise<Map<number, SparkMinutes>> {
  const out = new Map<number, SparkMinutes>()
  const reads = new Map<number, number[]>()
  for (const seq of seqs) {
    let st = store.sparks.get(seq)
    let from: number
    if (!st || now - st.readAt > FULL_READ_MS || st.first > first || st.rolled > rolled) {
      st = { first, rolled, readAt: now, avg: new Float64Array(SPARK_MINUTES).fill(Number.NaN) }
      from = first
    } else {
      const shift = (first - st.first) / MINUTE_MS
      if (shift > 0) {
        st.avg.copyWithin(0, Math.min(shift, SPARK_MINUTES))
        st.avg.fill(Number.NaN, Math.max(0, SPARK_MINUTES - shift))
      }
      from = st.rolled === rolled ? rolled : Math.max(first, st.rolled - REREAD_MINUTES * MINUTE_MS)
      st.first = first
      st.rolled = rolled
    }
    if (from < rolled) {
      st.avg.fill(Number.NaN, (from - first) / MINUTE_MS, (rolled - first) / MINUTE_MS)
      const group = reads.get(from)
      if (group) group.push(seq)
      else reads.set(from, [seq])
    }
    store.sparks.set(seq, st)
    out.set(seq, st)
  }
  for (const [from, group] of reads) {
    for (const [seq, t, avg] of await store.cpuMinutes(group, from, rolled)) out.get(seq)!.avg[(t - first) / MINUTE_MS] = avg
  }
  return out
}

/**
 * To a whole percent: a sparkline is a picture a few dozen pixels high, and whole numbers halve
 * the cost of writing 30,000 of them as JSON (and its size).
 */
const whole = Math.round

/**
 * Every device's figures in a handful of statements whatever the fleet's size: the newest
 * sample per kind (one index descent each), the recent sample times, and the CPU minutes of the
 * last hour from the 1m tier (kept between answers, see tierMinutes), completed from raw
 * samples for the minutes it has not rolled up.
 */
export async function fleetFigures(deps: { fleet: FleetReads }, seqs: number[], now: number): Promise<Map<number, DeviceFigures>> {
  const reads = deps.fleet
  const out = new Map<number, DeviceFigures>()
  if (!seqs.length) return out
  const index = new Map<number, number>()
  for (let i = 0; i < seqs.length; i++) index.set(seqs[i]!, i)
  const latest: LatestFigures[] = new Array(seqs.length).fill(NO_FIGURES)
  const lastAt: (number | null)[] = new Array(seqs.length).fill(null)
  for (const r of await reads.fleetLatest(seqs)) {
    const i = index.get(r[0]!)
    if (i === undefined) continue
    latest[i] = {
      cpu_percent: r[2]!,
      ram_percent: r[3]!,
      disk_used_percent: r[4]!,
      cpu_temp_c: r[5]!,
      download_mbps: r[7]!,
      upload_mbps: r[8]!,
      latency_avg_ms: r[9]!,
      packet_loss_percent: r[10]!,
    }
    lastAt[i] = r[1] === null ? r[6]! : r[6] === null ? r[1]! : Math.max(r[1]!, r[6]!)
  }

  const intervals = reads.intervals(seqs, now)
  const first = Math.floor(now / MINUTE_MS) * MINUTE_MS - (SPARK_MINUTES - 1) * MINUTE_MS
  const end = first + SPARK_MINUTES * MINUTE_MS
  const rolled = Math.max(first, Math.min(end, await reads.rolledUntil()))
  const minutes = await tierMinutes(reads, seqs, first, rolled, now)
  // the minutes not rolled up yet, from raw samples: few, and the newest rows, so near each other on disk
  const rawFrom = Math.floor((rolled - first) / MINUTE_MS)
  const rawMinutes = SPARK_MINUTES - rawFrom
  const sums = new Float64Array(seqs.length * rawMinutes)
  const counts = new Uint32Array(seqs.length * rawMinutes)
  if (rawMinutes > 0) {
    for (const [seq, t, v] of await reads.cpuSamples(seqs, rolled, end)) {
      const i = index.get(seq)
      if (i === undefined) continue
      const m = i * rawMinutes + Math.floor((t - rolled) / MINUTE_MS)
      sums[m] = sums[m]! + v
      counts[m] = counts[m]! + 1
    }
  }
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i]!
    const avg = minutes.get(seq)!.avg
    const spark: (number | null)[] = new Array(SPARK_MINUTES)
    for (let m = 0; m < rawFrom; m++) spark[m] = Number.isNaN(avg[m]!) ? null : whole(avg[m]!)
    for (let m = rawFrom; m < SPARK_MINUTES; m++) {
      const k = i * rawMinutes + m - rawFrom
      spark[m] = counts[k] ? whole(sums[k]! / counts[k]!) : null
    }
    out.set(seq, { latest: latest[i]!, lastSampleAt: lastAt[i]!, intervalMs: intervals.get(seq) ?? null, spark })
  }
  return out
}

/**
 * Each device's reporting interval: the median gap of its recent sample times, null with fewer
 * than two. Kept between calls and measured again every INTERVAL_TTL_MS, and until a device has
 * one (its first samples are arriving): the fleet overview and the devices' status sweep share it.
 */
function measuredIntervals(series: Pick<SeriesStore, 'intervals' | 'recentTimesOf'>, seqs: number[], now: number): Map<number, number | null> {
  const stale = seqs.filter((s) => {
    const known = series.intervals.get(s)
    return !known || known.ms === null || now - known.at > INTERVAL_TTL_MS || known.at > now
  })
  if (stale.length) {
    const times = new Map<number, number[]>()
    for (const s of stale) times.set(s, [])
    for (const [seq, ts] of series.recentTimesOf(stale)) times.get(seq)?.push(ts)
    for (const [seq, list] of times) series.intervals.set(seq, medianGap(list), now)
  }
  return new Map(seqs.map((s) => [s, series.intervals.get(s)?.ms ?? null]))
}

/** Each device's reporting interval on this hub's engine, at once (SQLite: measured as above; PostgreSQL: metrics.fleet.store.pg.ts). */
export const deviceIntervals = (deps: { fleet: FleetReads }, seqs: number[], now: number) => deps.fleet.intervals(seqs, now)
