import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { TIERS, packedTable, tierTable, type MetricKind, type TierName } from './metrics.fields'
import type { TierValues } from './metrics.store'

/**
 * The stored rollup rows the device page's summaries read, kept between requests. A summary of
 * 24 h reads 144 rows of the 10-minute tier (168 h: 168 hourly rows), about a hundred numbers
 * each, for every request; its window moves with the clock, but the whole buckets it reads change
 * every ten minutes (hourly) at most. Reading them afresh was half of what a summary allocated,
 * and the young-generation collections that allocation drove were its tail latency. Beside them,
 * the hourly tier's sample counts a history page's total takes for the whole hours of its range.
 *
 * Exact by construction: temporary triggers on the tier tables (the 1-minute tier's coded spans
 * and its rows of earlier releases counted as one) count, per table and device,
 * every row inserted, updated or deleted (a rollup run, a pruning, the disk budget, a deleted
 * device) on the one connection the hub writes through, as the history's hour counts do; a kept
 * answer is used only while its table and device have the count it was read at. Nothing is kept
 * or used inside a transaction, so a rolled-back write (which rolls its count back too) leaves
 * nothing behind.
 *
 * Bounded: at most MAX_ROWS rows across answers, the one used longest ago dropped first.
 * The answers are shared: callers must not change them.
 */

/** Rows kept across answers (about 1 KB each): a few devices' 24 h and 168 h summaries. */
export const MAX_ROWS = 2_048

/** One number per tier table: hardware's tiers, then network's. */
const tableNumber = (kind: MetricKind, tier: TierName) => (kind === 'hardware' ? 0 : TIERS.length) + TIERS.findIndex((t) => t.name === tier)

/**
 * The count of rows written per tier table and device, kept by temporary triggers from now on. A
 * cache made now holds nothing, so the writes before it do not matter.
 */
function countWrites(sqlite: Database) {
  sqlite.run(
    'CREATE TEMP TABLE IF NOT EXISTS metric_tier_writes (tbl INTEGER NOT NULL, device_seq INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tbl, device_seq)) WITHOUT ROWID',
  )
  // one cache per connection (below): it starts with nothing kept
  sqlite.run('DELETE FROM temp.metric_tier_writes')
  for (const kind of ['hardware', 'network'] as MetricKind[])
    for (const [name, table] of [...TIERS.map((t): [TierName, string] => [t.name, tierTable(kind, t.name)]), ['1m', packedTable(kind)] as [TierName, string]]) {
      const tbl = tableNumber(kind, name)
      const count = (row: 'NEW' | 'OLD') =>
        `INSERT INTO temp.metric_tier_writes VALUES (${tbl}, ${row}.device_seq, 1) ON CONFLICT (tbl, device_seq) DO UPDATE SET n = n + 1;`
      sqlite.run(`CREATE TEMP TRIGGER IF NOT EXISTS ${table}_insert_counted AFTER INSERT ON main.${table} BEGIN ${count('NEW')} END`)
      sqlite.run(`CREATE TEMP TRIGGER IF NOT EXISTS ${table}_update_counted AFTER UPDATE ON main.${table} BEGIN ${count('OLD')} ${count('NEW')} END`)
      sqlite.run(`CREATE TEMP TRIGGER IF NOT EXISTS ${table}_delete_counted AFTER DELETE ON main.${table} BEGIN ${count('OLD')} END`)
    }
  return sqlite.query<{ n: number }, [number, number]>('SELECT n FROM temp.metric_tier_writes WHERE tbl = ? AND device_seq = ?')
}

function build(sqlite: Database, maxRows: number | undefined) {
  const limit = maxRows ?? MAX_ROWS
  let writes: ReturnType<typeof countWrites> | undefined
  /** `writes` ?? the count table, its triggers and its statement, made at the first read (not at start: an idle hub never pays for them) */
  const counted = () => (writes ??= countWrites(sqlite))
  /** by key, in the order last used (a Map keeps insertion order); `size` in rows (a sum counts as one) */
  const kept = new Map<string, { writes: number; size: number; answer: unknown }>()
  let rows = 0

  const forget = (key: string) => {
    const k = kept.get(key)
    if (!k) return
    kept.delete(key)
    rows -= k.size
  }

  /** `read`'s answer for one tier table and device, kept or read now */
  function keep<T>(kind: MetricKind, tier: TierName, seq: number, key: string, read: () => T, size: (answer: T) => number): T {
    // first: the triggers are never made inside a transaction, whose rollback would drop them
    if (sqlite.inTransaction) return read()
    const tbl = tableNumber(kind, tier)
    const now = counted().get(tbl, seq)?.n ?? 0
    const at = `${tbl} ${seq} ${key}`
    const hit = kept.get(at)
    if (hit?.writes === now) {
      kept.delete(at)
      kept.set(at, hit)
      return hit.answer as T
    }
    forget(at)
    const fresh = read()
    const n = size(fresh)
    if (n > limit) return fresh
    kept.set(at, { writes: now, size: n, answer: fresh })
    rows += n
    for (const k of kept.keys()) {
      if (rows <= limit) break
      forget(k)
    }
    return fresh
  }

  return {
    /** `read`'s answer for the tier's rows of the device in [from, to), kept or read now */
    tierValues: (kind: MetricKind, tier: TierName, seq: number, from: number, to: number, read: () => TierValues[]): TierValues[] =>
      keep(kind, tier, seq, `${from} ${to}`, read, (r) => r.length),
    /**
     * `read`'s count of the device's samples the hourly tier holds in [from, to), kept or read
     * now: a history page's total takes every whole hour of the range from there (a sum over a
     * month's 720 rows of the tier, a tenth of the newest page's CPU), and it changes only when
     * the hour is rolled up or pruned.
     */
    hourlyCount: (kind: MetricKind, seq: number, from: number, to: number, read: () => number): number =>
      keep(kind, '1h', seq, `${from} ${to} n`, read, () => 1),
    /** rows kept now (tests) */
    rows: () => rows,
  }
}

export type TierRowsCache = ReturnType<typeof build>
/** One cache (and its triggers) per database connection; `maxRows` for tests. */
export const createTierRowsCache: (sqlite: Database, maxRows?: number) => TierRowsCache = perConnection(build)
