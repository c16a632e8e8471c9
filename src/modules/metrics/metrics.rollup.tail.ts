import { LEVEL, TIERS, type MetricKind, type TierName } from './metrics.fields'
import { aggregate, GRACE_MS } from './metrics.rollup'
import type { SourceRow } from './metrics.rollup.store'
import { read, type Steps } from './metrics.steps'
import type { TierValues } from './metrics.store'

const floorTo = (t: number, w: number) => Math.floor(t / w) * w

/**
 * How far the reads take each tier as rolled up: every bucket finished GRACE_MS ago, as the job
 * run every minute rolled them. SQLite's store rolls its finer tiers in whole spans (ROLL_STEPS in
 * metrics.rollup.store.ts), so its stored tiers lag behind these marks by up to a span; the reads
 * complete the buckets in between from the levels below (tierTail), and answer as before.
 */
export function dueUntil(now: number): Record<TierName, number> {
  const due = {} as Record<TierName, number>
  for (const t of TIERS) due[t.name] = floorTo(now - GRACE_MS, t.ms)
  return due
}

/**
 * Rows [bucket, n, ...tierColumns] of tier level `lv` (1m = 1) for its buckets in [a, b) from
 * `done[tier]` on, those the stored tier has not rolled yet, aggregated from the level below
 * exactly as the job rolls them (the same fold over the same rows: its stored rows up to its own
 * mark, then its own tail, down to raw samples). `a` and `b` lie on bucket bounds; `b` no later
 * than the tier's due mark.
 */
export function* tierTail(kind: MetricKind, lv: number, seq: number, a: number, b: number, done: Record<TierName, number>): Steps<TierValues[]> {
  const { name, ms: w } = TIERS[lv - 1]!
  const from = Math.max(a, done[name])
  if (from >= b) return []
  let source: (number | null)[][]
  if (lv - 1 === LEVEL.raw) source = yield* read((s) => s.rawValues(kind, seq, from, b))
  else {
    const below = TIERS[lv - 2]!
    const stored = yield* read((s) => s.tierValues(kind, below.name, seq, from, Math.min(b, done[below.name])))
    source = [...stored, ...(yield* tierTail(kind, lv - 1, seq, from, b, done))]
  }
  const out: TierValues[] = []
  aggregate(
    kind,
    lv - 1,
    w,
    source.map((r): SourceRow => [seq, ...r]),
    (row) => out.push(row.slice(1)),
  )
  return out
}

/**
 * One tier's rows [bucket, n, ...tierColumns] over [a, b) as the reads see them: stored up to
 * where the tier is rolled, then completed by tierTail up to its due mark (`due`, see dueUntil).
 * `a` lies on a bucket bound; a bucket starting before `b` is whole (as a stored one is).
 */
export function* tierRowsDue(
  kind: MetricKind,
  lv: number,
  seq: number,
  a: number,
  b: number,
  done: Record<TierName, number>,
  due: Record<TierName, number>,
): Steps<TierValues[]> {
  const { name, ms: w } = TIERS[lv - 1]!
  const e = Math.min(b, done[name])
  // the stored rows may be shared (kept between requests): added to in a copy, never in place
  const rows = e > a ? yield* read((s) => s.tierValues(kind, name, seq, a, e)) : []
  const d = Math.min(Math.ceil(b / w) * w, due[name])
  const from = Math.max(a, done[name])
  if (d <= from) return rows
  const tail = yield* tierTail(kind, lv, seq, from, d, done)
  return tail.length ? rows.concat(tail) : rows
}
