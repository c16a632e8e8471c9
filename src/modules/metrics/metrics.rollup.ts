import type { Database } from 'bun:sqlite'
import { COUNTER_FIELDS, counterStep, FIELDS, RAW_TABLE, TIERS, hasKind, tierColumns, tierTable, type MetricKind, type Tier } from './metrics.fields'
import { perConnection } from '../../db/per-connection'

/** Samples may arrive a little late (network, group commit): a bucket is final GRACE_MS after it ends. */
export const GRACE_MS = 30_000
/** Each run re-rolls this many of the last finished buckets, to pick up stragglers. */
const LOOKBACK_BUCKETS = 2
/** At most this many buckets per statement, so one statement never holds the write lock long. */
const BUCKETS_PER_STEP = 60

export const levelTable = (kind: MetricKind, level: number) => (level === 0 ? RAW_TABLE : tierTable(kind, TIERS[level - 1]!.name))
/** raw rows carry a kind only when its bit is set */
const kindFilter = (kind: MetricKind, level: number) => (level === 0 ? ` AND ${hasKind(kind)}` : '')
export const levelTimeColumn = (level: number) => (level === 0 ? 'ts' : 'bucket')

/** Source rows of one level, per device oldest first: raw samples, or the tier below. */
function sourceSql(kind: MetricKind, level: number): string {
  const time = levelTimeColumn(level)
  const cols = level === 0 ? FIELDS[kind].map((f) => f.name) : ['n', ...tierColumns(kind)]
  return `SELECT device_seq, ${time}, ${cols.join(', ')} FROM ${levelTable(kind, level)}
    WHERE device_seq IN (SELECT seq FROM devices WHERE seq IS NOT NULL) AND ${time} >= ? AND ${time} < ?${kindFilter(kind, level)}
    ORDER BY device_seq, ${time}`
}

/**
 * Aggregates source rows into one tier's buckets. Raw samples and tier rows are read the same
 * way (a sample is a bucket of one), so raw → 1m and 1m → 10m → 1h → 1d share this code:
 * averages weighted by each field's own sample count, min of mins, max of maxes, and counter
 * growth = growth inside each child + the step from one child to the next (a drop is a reset),
 * which composes exactly across tiers. Done in JS: SQLite's 60 aggregate calls per row cost
 * ~4x more than reading the rows out.
 */
export function aggregate(kind: MetricKind, level: number, width: number, rows: Iterable<(number | null)[]>, emit: (row: (number | null)[]) => void) {
  const F = FIELDS[kind].length
  const counters = COUNTER_FIELDS[kind]
  const C = counters.length
  const counterField = counters.map((c) => FIELDS[kind].findIndex((f) => f.name === c))
  const raw = level === 0
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
      out.push(k ? sum[i]! / k : null, k ? lo[i]! : null, k ? hi[i]! : null, k)
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

function build(sqlite: Database) {
  const source = {} as Record<MetricKind, ReturnType<Database['prepare']>[]>
  const insert = {} as Record<MetricKind, ReturnType<Database['prepare']>[]>
  const oldest = {} as Record<MetricKind, ReturnType<Database['prepare']>[]>
  for (const kind of ['hardware', 'network'] as const) {
    const cols = ['device_seq', 'bucket', 'n', ...tierColumns(kind)]
    source[kind] = TIERS.map((_, i) => sqlite.prepare(sourceSql(kind, i)))
    insert[kind] = TIERS.map((t) =>
      sqlite.prepare(`INSERT OR REPLACE INTO ${tierTable(kind, t.name)} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`),
    )
    // the oldest row of a level, found by one index seek per device
    oldest[kind] = [0, ...TIERS.map((_, i) => i + 1)].map((level) =>
      sqlite.prepare(
        `SELECT min((SELECT ${levelTimeColumn(level)} FROM ${levelTable(kind, level)} WHERE device_seq = d.seq${kindFilter(kind, level)} ORDER BY ${levelTimeColumn(level)} LIMIT 1)) AS t FROM devices d WHERE d.seq IS NOT NULL`,
      ),
    )
  }
  const getDone = sqlite.query<{ done_until: number }, [string, string]>('SELECT done_until FROM metric_rollups WHERE kind = ? AND tier = ?')
  const setDone = sqlite.query('INSERT OR REPLACE INTO metric_rollups (kind, tier, done_until) VALUES (?, ?, ?)')
  return {
    /** rolls tier `i` for every bucket in [a, b) in one transaction */
    roll(kind: MetricKind, i: number, a: number, b: number) {
      const ins = insert[kind][i]!
      // Streamed, not read out whole: a busy hour of raw samples can be hundreds of thousands of
      // rows (tens of MB as arrays). Reading one table while writing another is safe in SQLite.
      const rows = rowArrays(source[kind][i]!.iterate(a, b))
      sqlite.transaction(() => aggregate(kind, i, TIERS[i]!.ms, rows, (r) => ins.run(...r)))()
    },
    oldest,
    doneUntil: (kind: MetricKind, tier: Tier['name']) => getDone.get(kind, tier)?.done_until ?? null,
    setDone: (kind: MetricKind, tier: Tier['name'], t: number) => setDone.run(kind, tier, t),
  }
}

/** A statement's rows as arrays in column order (object keys keep the SELECT's column order). */
function* rowArrays(rows: Iterable<unknown>): Generator<(number | null)[]> {
  for (const row of rows) yield Object.values(row as Record<string, number | null>)
}

export const rollupStore: (sqlite: Database) => ReturnType<typeof build> = perConnection(build)

export interface RollupOptions {
  now: number
  /** the oldest raw sample written since the last run, per kind (late data re-rolls from there) */
  lateFrom?: Partial<Record<MetricKind, number | null>>
  /** raw samples older than this are never rolled up (they are about to be pruned) */
  rawRetentionMs?: number
  /** called between steps, so a long catch-up yields the event loop to requests */
  pause?: () => Promise<void>
}

/**
 * Brings every tier up to date: each tier covers every whole bucket its source level has
 * finished, re-rolling the last few buckets (and anything a late sample touched), in bounded
 * steps. Idempotent: rolling a bucket twice gives the same row.
 */
export async function rollupAll(sqlite: Database, opts: RollupOptions): Promise<void> {
  const s = rollupStore(sqlite)
  for (const kind of ['hardware', 'network'] as const) {
    let srcDone = opts.now - GRACE_MS
    let dirtyFrom: number | null = opts.lateFrom?.[kind] ?? null
    if (dirtyFrom !== null && opts.rawRetentionMs) dirtyFrom = Math.max(dirtyFrom, opts.now - opts.rawRetentionMs)
    for (let i = 0; i < TIERS.length; i++) {
      const { name, ms: w } = TIERS[i]!
      const end = floorTo(srcDone, w)
      const done = s.doneUntil(kind, name)
      let start: number
      if (done === null) {
        const first = (s.oldest[kind][i]!.get() as { t: number | null } | null)?.t ?? null
        start = first === null ? end : floorTo(first, w)
      } else start = Math.min(done, end) - LOOKBACK_BUCKETS * w
      if (dirtyFrom !== null) start = Math.min(start, floorTo(dirtyFrom, w))
      for (let a = start; a < end; a += BUCKETS_PER_STEP * w) {
        const b = Math.min(end, a + BUCKETS_PER_STEP * w)
        s.roll(kind, i, a, b)
        if (opts.pause) await opts.pause()
      }
      s.setDone(kind, name, Math.max(done ?? end, end))
      dirtyFrom = start < end ? start : dirtyFrom
      srcDone = Math.max(done ?? end, end)
    }
  }
}
