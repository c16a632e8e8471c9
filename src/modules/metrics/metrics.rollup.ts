import { COUNTER_FIELDS, counterStep, FIELDS, LEVEL, TIERS, type MetricKind, type TierName } from './metrics.fields'
import { boundedMean } from './metrics.mean'
import type { RollupPort, SourceRow } from './metrics.rollup.store'

/** Samples may arrive a little late (network, group commit): a bucket is final GRACE_MS after it ends. */
export const GRACE_MS = 30_000
/**
 * Each run re-rolls this many of the last finished minutes, to pick up stragglers the writer did
 * not report (a sample written just before a restart). Later samples are reported (the span of
 * times written late) and each coarser tier re-rolls only the buckets whose finer ones changed:
 * re-rolling settled buckets of every tier each minute rewrote every device's tier rows, most of
 * the bytes the rollups wrote to the disk. Only the buckets the late span covers are re-rolled,
 * not everything from it to now: a replay of samples two hours old re-rolled two hours of every
 * device's minutes at each run (600 B per sample written in the paced bench, docs/storage.md).
 */
const LOOKBACK_BUCKETS = 1
/** At most this many buckets per statement, so one statement never holds the write lock long. */
const BUCKETS_PER_STEP = 60

/**
 * Aggregates source rows into one tier's buckets. Raw samples and tier rows are read the same
 * way (a sample is a bucket of one), so raw → 1m and 1m → 10m → 1h → 1d share this code:
 * averages weighted by each field's own sample count, min of mins, max of maxes, and counter
 * growth = growth inside each child + the step from one child to the next (a drop is a reset),
 * which composes exactly across tiers. Done in JS: SQLite's aggregate calls (four per field
 * per row) cost more than reading the rows out.
 */
export function aggregate(kind: MetricKind, level: number, width: number, rows: Iterable<SourceRow>, emit: (row: (number | null)[]) => void) {
  const F = FIELDS[kind].length
  const counters = COUNTER_FIELDS[kind]
  const C = counters.length
  const counterField = counters.map((c) => FIELDS[kind].findIndex((f) => f.name === c))
  const raw = level === LEVEL.raw
  const sum = new Float64Array(F)
  const cnt = new Float64Array(F)
  const lo = new Float64Array(F)
  const hi = new Float64Array(F)
  const delta = new Float64Array(C)
  const first: (number | null)[] = new Array(C).fill(null)
  const last: (number | null)[] = new Array(C).fill(null)
  let dev = -1
  let bucket = -1
  let n = 0

  const flush = () => {
    if (n === 0) return
    const out: (number | null)[] = [dev, bucket, n]
    for (let i = 0; i < F; i++) {
      const k = cnt[i]!
      out.push(k ? boundedMean(sum[i]!, k, lo[i]!, hi[i]!) : null, k ? lo[i]! : null, k ? hi[i]! : null, k)
    }
    for (let j = 0; j < C; j++) out.push(first[j] === null ? null : delta[j]!, first[j]!, last[j]!)
    emit(out)
  }
  const reset = () => {
    sum.fill(0)
    cnt.fill(0)
    lo.fill(Infinity)
    hi.fill(-Infinity)
    delta.fill(0)
    first.fill(null)
    last.fill(null)
    n = 0
  }
  reset()
  for (const row of rows) {
    const d = row[0]!
    const b = Math.floor(row[1]! / width) * width
    if (d !== dev || b !== bucket) {
      flush()
      reset()
      dev = d
      bucket = b
    }
    if (raw) {
      n++
      for (let i = 0; i < F; i++) {
        const v = row[2 + i]
        if (v === null || v === undefined) continue
        sum[i] = sum[i]! + v
        cnt[i] = cnt[i]! + 1
        if (v < lo[i]!) lo[i] = v
        if (v > hi[i]!) hi[i] = v
      }
      for (let j = 0; j < C; j++) {
        const v = row[2 + counterField[j]!] ?? null
        if (v === null) continue
        if (last[j] !== null) delta[j] = delta[j]! + counterStep(last[j]!, v)
        if (first[j] === null) first[j] = v
        last[j] = v
      }
    } else {
      n += row[2]!
      for (let i = 0; i < F; i++) {
        const o = 3 + i * 4
        const k = row[o + 3] ?? 0
        if (!k || row[o] === null) continue
        sum[i] = sum[i]! + row[o]! * k
        cnt[i] = cnt[i]! + k
        if (row[o + 1]! < lo[i]!) lo[i] = row[o + 1]!
        if (row[o + 2]! > hi[i]!) hi[i] = row[o + 2]!
      }
      for (let j = 0; j < C; j++) {
        const o = 3 + F * 4 + j * 3
        const fs = row[o + 1] ?? null
        const ls = row[o + 2] ?? null
        if (fs === null || ls === null) continue
        if (last[j] !== null) delta[j] = delta[j]! + counterStep(last[j]!, fs)
        delta[j] = delta[j]! + (row[o] ?? 0)
        if (first[j] === null) first[j] = fs
        last[j] = ls
      }
    }
  }
  flush()
}

const floorTo = (t: number, w: number) => Math.floor(t / w) * w

export interface RollupOptions {
  now: number
  /** the devices to roll up (every device's seq) */
  devices: number[]
  /** the times of the raw samples written since the last run, oldest and newest, per kind (late data re-rolls their buckets) */
  late?: Partial<Record<MetricKind, { from: number; to: number } | null>>
  /** raw samples older than this are never rolled up (they are about to be pruned) */
  rawRetentionMs?: number
  /** called between steps, so a long catch-up yields the event loop to requests */
  pause?: () => Promise<void>
  /** per tier, the whole spans it is rolled in (a multiple of its width; its width when not given): see ROLL_STEPS */
  steps?: Partial<Record<TierName, number>>
}

/**
 * Brings every tier up to date: each tier covers every whole bucket its source level has
 * finished, re-rolling the last few buckets (and anything a late sample touched), in bounded
 * steps. Idempotent: rolling a bucket twice gives the same row.
 */
export async function rollupAll(s: RollupPort, opts: RollupOptions): Promise<void> {
  for (const kind of ['hardware', 'network'] as const) {
    let srcDone = opts.now - GRACE_MS
    const late = opts.late?.[kind] ?? null
    /** the spans of time [from, to) whose rows changed at the level below the tier being rolled */
    let dirty: Span[] = []
    if (late) {
      const from = opts.rawRetentionMs ? Math.max(late.from, opts.now - opts.rawRetentionMs) : late.from
      if (from <= late.to) dirty = [[from, late.to + 1]]
    }
    for (let i = 0; i < TIERS.length; i++) {
      const { name, ms: w } = TIERS[i]!
      const end = floorTo(srcDone, opts.steps?.[name] ?? w)
      const done = await s.doneUntil(kind, name)
      let start: number
      if (done === null) {
        const first = await s.oldest(kind, i, opts.devices)
        start = first === null ? end : floorTo(first, w)
      } else start = Math.min(done, end)
      // the look-back: the last buckets finished, whether or not the tier moves on in this run (a
      // bucket whose figures did not change is not written again, metrics.rollup.store.ts)
      const back: Span[] = done !== null && i === 0 ? [[done - LOOKBACK_BUCKETS * w, done]] : []
      // the tier's own progress, and the whole buckets over what changed below it, whenever that was
      const spans = merge([[start, end], ...back, ...dirty.map(([a, b]): Span => [floorTo(a, w), Math.min(end, ceilTo(b, w))])])
      for (const [from, to] of spans) {
        for (let a = from; a < to; a += BUCKETS_PER_STEP * w) {
          const b = Math.min(to, a + BUCKETS_PER_STEP * w)
          await s.roll(kind, i, opts.devices, a, b, (rows, emit) => aggregate(kind, i, w, rows, emit))
          if (opts.pause) await opts.pause()
        }
      }
      // a mark that does not move is not written again: each write is a transaction of its own (two
      // pages to the log and again at the checkpoint), and most runs finish no new 10m, 1h or 1d bucket
      if (done === null || end > done) await s.setDone(kind, name, end)
      if (spans.length) dirty = spans
      srcDone = Math.max(done ?? end, end)
    }
  }
}

type Span = [number, number]

const ceilTo = (t: number, w: number) => Math.ceil(t / w) * w

/** The non-empty spans, sorted, overlapping or touching ones joined. */
function merge(spans: Span[]): Span[] {
  const out: Span[] = []
  for (const [a, b] of spans.filter(([a, b]) => a < b).sort((x, y) => x[0] - y[0])) {
    const prev = out.at(-1)
    if (prev && a <= prev[1]) prev[1] = Math.max(prev[1], b)
    else out.push([a, b])
  }
  return out
}
