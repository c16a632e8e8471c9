import { LEVEL, TIERS, levelName, type LevelName } from './metrics.fields'
import { boundedMean } from './metrics.mean'

/** Points one series answer may hold; a range and resolution that would give more is refused. */
export const MAX_POINTS = 5_000
/**
 * The same with nested families: each of their points is read from a raw sample's JSON, and a
 * device's raw samples lie far apart on disk (ingest writes every device's sample of a moment
 * together), so each costs a page read. 1,000 keeps such an answer within tens of milliseconds.
 */
export const MAX_NESTED_POINTS = 1_000
/** What `auto` aims for: enough points for a chart across a wide screen. */
export const TARGET_POINTS = 300
/** The collector's default interval: what a device that has not sent two samples is assumed to use. */
export const DEFAULT_INTERVAL_MS = 10_000

/** A level's bucket width; raw has none (each sample is its own point). */
export const levelWidth = (level: number) => (level === LEVEL.raw ? 0 : TIERS[level - 1]!.ms)

/**
 * The device's reporting interval: the median gap between its recent sample times (any order).
 * The median, not the mean: one outage or a burst of replayed samples does not move it. Null
 * with fewer than two distinct times.
 */
export function medianGap(times: ArrayLike<number>): number | null {
  const sorted = Array.from(times).sort((a, b) => a - b)
  const gaps: number[] = []
  for (let i = 1; i < sorted.length; i++) if (sorted[i]! > sorted[i - 1]!) gaps.push(sorted[i]! - sorted[i - 1]!)
  if (!gaps.length) return null
  gaps.sort((a, b) => a - b)
  const mid = gaps.length >> 1
  return gaps.length % 2 ? gaps[mid]! : (gaps[mid - 1]! + gaps[mid]!) / 2
}

/** How many points a level gives over [from, to): whole buckets touched, or samples at the device's interval. */
export function estimatePoints(level: number, from: number, to: number, intervalMs: number | null): number {
  if (to <= from) return 0
  if (level === LEVEL.raw) return Math.ceil((to - from) / (intervalMs || DEFAULT_INTERVAL_MS))
  const w = levelWidth(level)
  return Math.ceil(to / w) - Math.floor(from / w)
}

export interface LevelChoice {
  from: number
  to: number
  now: number
  intervalMs: number | null
  /** how long each level keeps its rows (ms) */
  retentionMs: Record<LevelName, number>
  /** MAX_POINTS, or MAX_NESTED_POINTS when nested families are asked for */
  maxPoints: number
}

/**
 * `auto`: the coarsest level that still gives TARGET_POINTS over the range, within maxPoints,
 * and that still keeps the range's start (a finer level pruned there would answer nothing); when
 * none reaches the target (a short range), the finest one that keeps the start.
 */
export function autoLevel(c: LevelChoice): number {
  const levels = [LEVEL['1d'], LEVEL['1h'], LEVEL['10m'], LEVEL['1m'], LEVEL.raw]
  const keeps = (level: number) => level === LEVEL['1d'] || c.from >= c.now - c.retentionMs[levelName(level)]
  const points = (level: number) => estimatePoints(level, c.from, c.to, c.intervalMs)
  let best = LEVEL['1d']
  for (const level of levels) {
    if (points(level) > c.maxPoints) break
    // retention is not ordered by fineness (raw outlives 1m by default): skip, do not stop
    if (!keeps(level)) continue
    best = level
    if (points(level) >= TARGET_POINTS) break
  }
  return best
}

/**
 * Where a chart should break its line: two consecutive points further apart than this. A
 * single missing sample (a gap of 2 steps) still joins; two missing (3 steps) break. The step
 * is the bucket width or the device's own interval, whichever is longer, so a device reporting
 * every 5 minutes is not drawn as dots at 1-minute resolution.
 */
export const gapThreshold = (stepMs: number, intervalMs: number | null) => 2.5 * Math.max(stepMs, intervalMs ?? 0, 1)

export type Column = (number | null)[]

/** One series being filled: its column of averages (or raw values), and min/max at tiers. */
interface Track {
  values: Column
  min: Column
  max: Column
  sum: number
  n: number
  lo: number
  hi: number
}

/**
 * Columnar series built in time order: every value belongs to the bucket of width `width` that
 * holds its time (width 0: each time is its own point). Series may appear part way (a disk
 * mounted later): their columns start with nulls. Values within a bucket are averaged, weighted
 * by their sample counts; min and max kept at tiers. Nothing is allocated per value.
 */
export class SeriesBuilder {
  readonly t: number[] = []
  private readonly tracks: Track[] = []
  private readonly index = new Map<string, number>()
  private cur = Number.NaN
  private open = false

  constructor(
    readonly width: number,
    names: string[] = [],
  ) {
    for (const n of names) this.track(n)
  }

  /** the index of a series, made on first use */
  track(name: string): number {
    let i = this.index.get(name)
    if (i === undefined) {
      const pad = (): Column => new Array(this.t.length).fill(null)
      i = this.tracks.push({ values: pad(), min: pad(), max: pad(), sum: 0, n: 0, lo: Infinity, hi: -Infinity }) - 1
      this.index.set(name, i)
    }
    return i
  }

  /** Moves to the bucket holding `time` (times must not go back). */
  at(time: number): void {
    const b = this.width ? Math.floor(time / this.width) * this.width : time
    if (this.open && b === this.cur) return
    this.flush()
    this.cur = b
    this.open = true
  }

  /** one sample's value */
  add(i: number, v: number): void {
    const k = this.tracks[i]!
    k.sum += v
    k.n++
    if (v < k.lo) k.lo = v
    if (v > k.hi) k.hi = v
  }

  /** a tier row's aggregate: average over n samples, with its min and max */
  addAggregate(i: number, avg: number, n: number, lo: number, hi: number): void {
    const k = this.tracks[i]!
    k.sum += avg * n
    k.n += n
    if (lo < k.lo) k.lo = lo
    if (hi > k.hi) k.hi = hi
  }

  private flush(): void {
    if (!this.open) return
    this.t.push(this.cur)
    for (const k of this.tracks) {
      if (k.n) {
        k.values.push(boundedMean(k.sum, k.n, k.lo, k.hi))
        k.min.push(k.lo)
        k.max.push(k.hi)
      } else {
        k.values.push(null)
        k.min.push(null)
        k.max.push(null)
      }
      k.sum = 0
      k.n = 0
      k.lo = Infinity
      k.hi = -Infinity
    }
    this.open = false
  }

  /** The finished columns, by series name. */
  finish(): Columns {
    this.flush()
    const values: Record<string, Column> = {}
    const min: Record<string, Column> = {}
    const max: Record<string, Column> = {}
    for (const [name, i] of this.index) {
      const k = this.tracks[i]!
      values[name] = k.values
      min[name] = k.min
      max[name] = k.max
    }
    return { t: this.t, values, min, max }
  }
}

/** Series sharing one time axis (ms), oldest first. */
export interface Columns {
  t: number[]
  values: Record<string, Column>
  min: Record<string, Column>
  max: Record<string, Column>
}

/** Two sets of columns on one axis: the union of their times, each series null where its set had no point. */
export function mergeColumns(a: Columns, b: Columns): Columns {
  if (!b.t.length && !Object.keys(b.values).length) return a
  if (!a.t.length && !Object.keys(a.values).length) return b
  const t: number[] = []
  const ia: number[] = []
  const ib: number[] = []
  let i = 0
  let j = 0
  while (i < a.t.length || j < b.t.length) {
    const x = i < a.t.length ? a.t[i]! : Infinity
    const y = j < b.t.length ? b.t[j]! : Infinity
    t.push(Math.min(x, y))
    ia.push(x <= y ? i++ : -1)
    ib.push(y <= x ? j++ : -1)
  }
  const pick = (col: Column, idx: number[]) => idx.map((k) => (k < 0 ? null : col[k]!))
  const out: Columns = { t, values: {}, min: {}, max: {} }
  for (const [src, idx] of [
    [a, ia],
    [b, ib],
  ] as const) {
    for (const name in src.values) {
      out.values[name] = pick(src.values[name]!, idx)
      out.min[name] = pick(src.min[name]!, idx)
      out.max[name] = pick(src.max[name]!, idx)
    }
  }
  return out
}

/**
 * Breaks the lines across outages: after each point followed by a gap longer than `threshold`,
 * a point with every series null, one step later, so a chart never draws a line across it.
 */
export function withGaps(c: Columns, threshold: number, stepMs: number): Columns {
  const at: number[] = []
  for (let i = 1; i < c.t.length; i++) if (c.t[i]! - c.t[i - 1]! > threshold) at.push(i)
  if (!at.length) return c
  const nullStep = Math.max(stepMs, 1)
  const spread = (col: Column) => {
    const out: Column = []
    let g = 0
    for (let i = 0; i < col.length; i++) {
      if (g < at.length && at[g] === i) {
        out.push(null)
        g++
      }
      out.push(col[i]!)
    }
    return out
  }
  const t: number[] = []
  let g = 0
  for (let i = 0; i < c.t.length; i++) {
    if (g < at.length && at[g] === i) {
      t.push(c.t[i - 1]! + nullStep)
      g++
    }
    t.push(c.t[i]!)
  }
  const map = (r: Record<string, Column>) => {
    const out: Record<string, Column> = {}
    for (const k in r) out[k] = spread(r[k]!)
    return out
  }
  return { t, values: map(c.values), min: map(c.min), max: map(c.max) }
}
