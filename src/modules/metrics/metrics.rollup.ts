import type { Database } from 'bun:sqlite'
import { COUNTER_FIELDS, FIELDS, TIERS, rawTable, tierTable, type MetricKind, type Tier } from './metrics.fields'

/** Samples may arrive a little late (network, group commit): a bucket is final GRACE_MS after it ends. */
export const GRACE_MS = 30_000
/** Each run re-rolls this many of the last finished buckets, to pick up stragglers. */
const LOOKBACK_BUCKETS = 2
/** At most this many buckets per statement, so one statement never holds the write lock long. */
const BUCKETS_PER_STEP = 60

/**
 * One level's rows in a common shape: per field a sum, a count, a min and a max; per counter
 * its growth inside the row, first and last value. Raw samples and tier rows both map to it,
 * so one aggregation rolls raw → 1m and 1m → 10m → 1h → 1d alike.
 */
function sourceColumns(kind: MetricKind, level: number): string {
  const raw = level === 0
  const cols = [raw ? 'ts AS t' : 'bucket AS t', raw ? '1 AS n' : 'n']
  FIELDS[kind].forEach((f, i) => {
    const c = f.name
    if (raw) cols.push(`${c} AS s${i}`, `(${c} IS NOT NULL) AS k${i}`, `${c} AS lo${i}`, `${c} AS hi${i}`)
    else cols.push(`${c}_avg * ${c}_n AS s${i}`, `${c}_n AS k${i}`, `${c}_min AS lo${i}`, `${c}_max AS hi${i}`)
  })
  COUNTER_FIELDS[kind].forEach((c, j) => {
    if (raw) cols.push(`0 AS dl${j}`, `${c} AS fs${j}`, `${c} AS ls${j}`)
    else cols.push(`${c}_delta AS dl${j}`, `${c}_first AS fs${j}`, `${c}_last AS ls${j}`)
  })
  return cols.join(', ')
}

export const levelTable = (kind: MetricKind, level: number) => (level === 0 ? rawTable(kind) : tierTable(kind, TIERS[level - 1]!.name))
export const levelTimeColumn = (level: number) => (level === 0 ? 'ts' : 'bucket')

/** INSERT OR REPLACE of every bucket of `tier` in [?1, ?2) from the level below it. */
export function rollupSql(kind: MetricKind, tierIndex: number): string {
  const w = TIERS[tierIndex]!.ms
  const src = levelTable(kind, tierIndex)
  const time = levelTimeColumn(tierIndex)
  const fields = FIELDS[kind]
  const counters = COUNTER_FIELDS[kind]
  const targetCols = ['device_seq', 'bucket', 'n']
  const agg = ['d', 'b', 'sum(n)']
  fields.forEach((f, i) => {
    targetCols.push(`${f.name}_avg`, `${f.name}_min`, `${f.name}_max`, `${f.name}_n`)
    agg.push(`sum(s${i}) / nullif(sum(k${i}), 0)`, `min(lo${i})`, `max(hi${i})`, `sum(k${i})`)
  })
  const windows: string[] = []
  counters.forEach((c, j) => {
    targetCols.push(`${c}_delta`, `${c}_first`, `${c}_last`)
    // growth = growth inside each child + the step from one child to the next; a drop is a counter reset
    agg.push(
      `sum(coalesce(dl${j}, 0)) + sum(CASE WHEN pv${j} IS NULL OR fs${j} IS NULL THEN 0 WHEN fs${j} >= pv${j} THEN fs${j} - pv${j} ELSE fs${j} END)`,
      `max(CASE WHEN ra = 1 THEN fs${j} END)`,
      `max(CASE WHEN rd = 1 THEN ls${j} END)`,
    )
    windows.push(`LAG(ls${j}) OVER w AS pv${j}`)
  })
  return `INSERT OR REPLACE INTO ${tierTable(kind, TIERS[tierIndex]!.name)} (${targetCols.join(', ')})
SELECT ${agg.join(', ')} FROM (
  SELECT *, device_seq AS d, (t / ${w}) * ${w} AS b, ${[...windows, 'ROW_NUMBER() OVER w AS ra', `ROW_NUMBER() OVER (PARTITION BY device_seq, t / ${w} ORDER BY t DESC) AS rd`].join(', ')}
  FROM (SELECT device_seq, ${sourceColumns(kind, tierIndex)} FROM ${src}
        WHERE device_seq IN (SELECT seq FROM devices WHERE seq IS NOT NULL) AND ${time} >= ?1 AND ${time} < ?2)
  WINDOW w AS (PARTITION BY device_seq, t / ${w} ORDER BY t)
) GROUP BY d, b`
}

const floorTo = (t: number, w: number) => Math.floor(t / w) * w

function build(sqlite: Database) {
  const roll = {} as Record<MetricKind, ReturnType<Database['prepare']>[]>
  const oldest = {} as Record<MetricKind, ReturnType<Database['prepare']>[]>
  for (const kind of ['hardware', 'network'] as const) {
    roll[kind] = TIERS.map((_, i) => sqlite.prepare(rollupSql(kind, i)))
    // the oldest row of a level, found by one index seek per device
    oldest[kind] = [0, ...TIERS.map((_, i) => i + 1)].map((level) =>
      sqlite.prepare(
        `SELECT min((SELECT min(${levelTimeColumn(level)}) FROM ${levelTable(kind, level)} WHERE device_seq = d.seq)) AS t FROM devices d WHERE d.seq IS NOT NULL`,
      ),
    )
  }
  const getDone = sqlite.query<{ done_until: number }, [string, string]>('SELECT done_until FROM metric_rollups WHERE kind = ? AND tier = ?')
  const setDone = sqlite.query('INSERT OR REPLACE INTO metric_rollups (kind, tier, done_until) VALUES (?, ?, ?)')
  return {
    roll,
    oldest,
    doneUntil: (kind: MetricKind, tier: Tier['name']) => getDone.get(kind, tier)?.done_until ?? null,
    setDone: (kind: MetricKind, tier: Tier['name'], t: number) => setDone.run(kind, tier, t),
  }
}

const cache = new WeakMap<Database, ReturnType<typeof build>>()
export function rollupStore(sqlite: Database) {
  let s = cache.get(sqlite)
  if (!s) cache.set(sqlite, (s = build(sqlite)))
  return s
}

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
        s.roll[kind][i]!.run(a, b)
        if (opts.pause) await opts.pause()
      }
      s.setDone(kind, name, Math.max(done ?? end, end))
      dirtyFrom = start < end ? start : dirtyFrom
      srcDone = Math.max(done ?? end, end)
    }
  }
}
