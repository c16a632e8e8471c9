import { toIso } from '../../lib/clock'
import { COUNTER_FIELDS, counterStep, FIELDS, LEVEL, TIERS, type MetricKind } from './metrics.fields'
import type { FieldStats } from './metrics.summary.model'
import { dueUntil, tierRowsDue } from './metrics.rollup.tail'
import { boundedMean } from './metrics.mean'
import { read, type Steps } from './metrics.steps'
import { P95Values, p95Of } from './metrics.summary.p95'

/** The level a window of N hours is answered from: ~60–360 rows whatever the window. */
export function levelForHours(hours: number): number {
  if (hours <= 1) return LEVEL.raw // ≤ 360 samples at 10 s
  if (hours <= 6) return LEVEL['1m']
  if (hours <= 48) return LEVEL['10m']
  return LEVEL['1h']
}

interface Acc {
  sum: number
  n: number
  min: number
  max: number
  /** raw values, or per-bucket averages when a tier answered: the p95 is taken over these */
  vals: number[]
  last: number | null
  /** the tier bucket `last` was taken from ([start, end)), or -1 when it is a raw value */
  lastStart: number
  lastEnd: number
}

interface CounterAcc {
  delta: number
  prev: number | null
  seen: boolean
}

/**
 * `last` is the newest value sent, not a bucket's average: where a field's newest value in the
 * window fell in a tier bucket (no raw sample of it after that bucket), the bucket's raw samples
 * are read for it. Once raw retention has pruned that bucket the average stays, the best left.
 */
function* lastFromRaw(kind: MetricKind, seq: number, acc: Acc[]): Steps<void> {
  const byBucket = new Map<number, { end: number; fields: number[] }>()
  acc.forEach((x, i) => {
    if (x.lastStart < 0) return
    const b = byBucket.get(x.lastStart) ?? { end: x.lastEnd, fields: [] }
    b.fields.push(i)
    byBucket.set(x.lastStart, b)
  })
  for (const [start, { end, fields }] of byBucket) {
    const rows = yield* read((s) => s.rawValues(kind, seq, start, end))
    for (const i of fields) {
      for (let r = rows.length - 1; r >= 0; r--) {
        const v = rows[r]![i + 1]
        if (v === null || v === undefined) continue
        acc[i]!.last = v
        break
      }
    }
  }
}

export interface SectionResult {
  samples: number
  first_at: string | null
  last_at: string | null
  fields: Record<string, FieldStats>
  counters: Record<string, number | null>
}

/**
 * Summarises one kind over [from, to): the chosen tier for the whole buckets inside the window,
 * finer levels (down to raw samples) for the ragged edges and for what the tier has not rolled
 * up yet. Everything arrives oldest first, so "last" and counter growth are read in order.
 */
export function* summarizeKind(kind: MetricKind, seq: number, from: number, to: number, level: number, now: number): Steps<SectionResult> {
  const fields = FIELDS[kind]
  const counters = COUNTER_FIELDS[kind]
  const counterIdx = counters.map((c) => fields.findIndex((f) => f.name === c))
  const acc: Acc[] = fields.map(() => ({
    sum: 0,
    n: 0,
    min: Infinity,
    max: -Infinity,
    vals: [],
    last: null,
    lastStart: -1,
    lastEnd: -1,
  }))
  const cacc: CounterAcc[] = counters.map(() => ({ delta: 0, prev: null, seen: false }))
  const done = level > LEVEL.raw ? yield* read((s) => s.doneUntil(kind)) : null
  const levelWidth = level > LEVEL.raw ? TIERS[level - 1]!.ms : 0
  const p95 = new P95Values(
    levelWidth,
    acc.map((x) => x.vals),
  )
  // the tiers as the reads see them: stored, completed up to what a run every minute would have rolled
  const due = dueUntil(now)
  let samples = 0
  let firstBucket: number | null = null
  let lastBucketEnd: number | null = null
  let firstWidth = 0
  let lastWidth = 0

  const counterReading = (j: number, first: number | null, delta: number | null, last: number | null) => {
    const c = cacc[j]!
    if (first === null || last === null) return
    if (c.prev !== null) c.delta += counterStep(c.prev, first)
    c.delta += delta ?? 0
    c.prev = last
    c.seen = true
  }

  function* fromRaw(a: number, b: number): Steps<void> {
    if (a >= b) return
    const rows = yield* read((s) => s.rawValues(kind, seq, a, b))
    samples += rows.length
    // a raw window takes every value; a tier's gathers them into its buckets
    const gather = levelWidth > 0
    for (const row of rows) {
      p95.row(row[0]!)
      for (let i = 0; i < fields.length; i++) {
        const v = row[i + 1]
        if (v === null || v === undefined) continue
        const x = acc[i]!
        x.sum += v
        x.n++
        if (v < x.min) x.min = v
        if (v > x.max) x.max = v
        if (gather) p95.add(i, v, 1)
        else x.vals.push(v)
        x.last = v
        x.lastStart = -1
      }
      for (let j = 0; j < counters.length; j++) {
        const v = row[counterIdx[j]! + 1] ?? null
        counterReading(j, v, 0, v)
      }
    }
  }

  function* fromTier(lv: number, a: number, b: number): Steps<void> {
    const tier = TIERS[lv - 1]!
    const rows = yield* tierRowsDue(kind, lv, seq, a, b, done!, due)
    const width = tier.ms
    // a row of the answering tier is a whole bucket of its own; a finer one is gathered into one
    const gather = lv !== level
    for (const row of rows) {
      p95.row(row[0]!)
      if (firstBucket === null) {
        firstBucket = row[0]!
        firstWidth = width
      }
      lastBucketEnd = row[0]! + width
      lastWidth = width
      samples += row[1]!
      for (let i = 0; i < fields.length; i++) {
        const o = 2 + i * 4
        const avg = row[o]
        const n = row[o + 3] ?? 0
        if (avg === null || avg === undefined || !n) continue
        const x = acc[i]!
        x.sum += avg * n
        x.n += n
        if (row[o + 1]! < x.min) x.min = row[o + 1]!
        if (row[o + 2]! > x.max) x.max = row[o + 2]!
        if (gather) p95.add(i, avg, n)
        else x.vals.push(avg)
        x.last = avg
        x.lastStart = row[0]!
        x.lastEnd = row[0]! + width
      }
      const co = 2 + fields.length * 4
      for (let j = 0; j < counters.length; j++) {
        counterReading(j, row[co + j * 3 + 1] ?? null, row[co + j * 3] ?? null, row[co + j * 3 + 2] ?? null)
      }
    }
  }

  function* collect(lv: number, a: number, b: number): Steps<void> {
    if (a >= b) return
    if (lv === LEVEL.raw) return yield* fromRaw(a, b)
    const { name, ms: w } = TIERS[lv - 1]!
    const s = Math.ceil(a / w) * w
    const e = Math.min(Math.floor(b / w) * w, due[name])
    if (s >= e) return yield* collect(lv - 1, a, b)
    yield* collect(lv - 1, a, s)
    yield* fromTier(lv, s, e)
    yield* collect(lv - 1, e, b)
  }

  yield* collect(level, from, to)
  p95.close()
  yield* lastFromRaw(kind, seq, acc)

  const out: Record<string, FieldStats> = {}
  fields.forEach((f, i) => {
    const x = acc[i]!
    if (!x.n) return
    out[f.name] = {
      avg: boundedMean(x.sum, x.n, x.min, x.max),
      min: x.min,
      max: x.max,
      p95: p95Of(x.vals),
      last: x.last,
    }
  })
  // exact first/last sample times when raw samples are still kept, else the tier bucket bounds
  // (a tier bucket wholly older than the oldest raw sample means raw was pruned there)
  const rawFirst = yield* read((s) => s.firstTs(kind, seq, from, to))
  const rawLast = yield* read((s) => s.lastTs(kind, seq, from, to))
  const first = firstBucket !== null && (rawFirst === null || firstBucket + firstWidth <= rawFirst) ? firstBucket : rawFirst
  const last = lastBucketEnd !== null && (rawLast === null || lastBucketEnd - lastWidth > rawLast) ? lastBucketEnd : rawLast
  const counterOut: Record<string, number | null> = {}
  counters.forEach((c, j) => {
    counterOut[c] = cacc[j]!.seen ? cacc[j]!.delta : null
  })
  return {
    samples,
    first_at: samples && first !== null ? toIso(first) : null,
    last_at: samples && last !== null ? toIso(last) : null,
    fields: out,
    counters: counterOut,
  }
}
