import type { Database, Statement } from 'bun:sqlite'
import { FIELDS, LEVEL, MINUTE_MS, RAW_TABLE, TIERS, hasKind, tierColumns, tierTable, type MetricKind, type TierName } from './metrics.fields'
import { perConnection } from '../../db/per-connection'
import { createHotStore } from './metrics.hot.store'
import { HOT_ROWS, RAW_MAIN } from './metrics.hot.rows'
import { createPackedStore } from './metrics.packed.store'

/** A source row handed to a fold: [device_seq, time, ...values] (see sourceSql). */
export type SourceRow = (number | null)[]
/** Reads source rows and calls emit once per tier row to write. */
export type Fold = (rows: Iterable<SourceRow>, emit: (row: (number | null)[]) => void) => void

/**
 * The spans SQLite's tiers are rolled in. The 10-minute and coarser tier tables are keyed
 * (device, time), so each run writes each device's last page of every tier it adds a bucket to;
 * the 1-minute tier is one coded row per device and ten minutes (metrics.packed.store.ts), which a
 * run writes whole. Rolled minute by minute at a collector's 10 s, a run rewrote a page per device
 * and kind each minute for six samples (scripts/bench/storage-cadence.ts); the 1-minute tier is
 * rolled in whole ten minutes (each coded row written once), the 10-minute tier in whole hours
 * (six rows per page write). The reads complete what a tier has not rolled yet from the levels
 * below, as a run every minute would have rolled it (metrics.rollup.tail.ts), so their answers do
 * not change. The hourly and daily tiers keep their width: the hourly tier is read without
 * completion (the disk-fill trend, the AI's rules, totals).
 */
export const ROLL_STEPS: Record<TierName, number> = { '1m': 10 * MINUTE_MS, '10m': 60 * MINUTE_MS, '1h': 60 * MINUTE_MS, '1d': 1440 * MINUTE_MS }

/**
 * The most rows deleted per statement. The jobs size each batch by how long the last one took
 * (metrics.jobs.ts, `pruneSizer`), up to this: a slow card deletes fewer rows per statement.
 */
export const PRUNE_BATCH = 5_000

const KINDS: MetricKind[] = ['hardware', 'network']
const levelTable = (kind: MetricKind, level: number) => (level === LEVEL.raw ? RAW_TABLE : tierTable(kind, TIERS[level - 1]!.name))
/** raw rows carry a kind only when its bit is set */
const kindFilter = (kind: MetricKind, level: number) => (level === LEVEL.raw ? ` AND ${hasKind(kind)}` : '')
const levelTimeColumn = (level: number) => (level === LEVEL.raw ? 'ts' : 'bucket')

/**
 * The devices' seqs as one JSON array parameter: `device_seq IN (SELECT value FROM json_each(?))`
 * makes every range below one index seek per device, in seq order.
 */
const seqList = (seqs: number[]) => JSON.stringify(seqs)

/** Source rows of one level, per device oldest first: raw samples, or the tier below. */
function sourceSql(kind: MetricKind, level: number): string {
  const time = levelTimeColumn(level)
  const cols = level === LEVEL.raw ? FIELDS[kind].map((f) => f.name) : ['n', ...tierColumns(kind)]
  return `SELECT device_seq, ${time}, ${cols.join(', ')} FROM ${levelTable(kind, level)}
    WHERE device_seq IN (SELECT value FROM json_each(?3)) AND ${time} >= ?1 AND ${time} < ?2${kindFilter(kind, level)}
    ORDER BY device_seq, ${time}`
}

/** A statement's rows as arrays in column order (object keys keep the SELECT's column order). */
function* rowArrays(rows: Iterable<unknown>): Generator<SourceRow> {
  for (const row of rows) yield Object.values(row as Record<string, number | null>)
}

/** The rollup tiers' writes and the retention deletes: what the metric jobs run. */
function build(sqlite: Database) {
  const hot = createHotStore(sqlite) // the raw table's view, and the records of samples pruned while hot
  const minutes = createPackedStore(sqlite) // the 1-minute tier, coded per ten minutes
  // by level (source: the level a tier is rolled from; insert: the tier's level). The 1-minute tier
  // has none here: it is written, read, found and pruned through its coded spans and the rows of
  // its earlier form (metrics.packed.store.ts)
  const source = {} as Record<MetricKind, Map<number, Statement>>
  const insert = {} as Record<MetricKind, Map<number, Statement>>
  const oldest = {} as Record<MetricKind, Map<number, Statement<{ t: number | null }, [string]>>>
  const prune = {} as Record<MetricKind, Map<number, Statement>>
  let pruneHot: Statement | undefined
  const byLevel = <T>(levels: number[], make: (level: number) => T) => new Map(levels.map((level) => [level, make(level)]))
  for (const kind of KINDS) {
    const cols = ['device_seq', 'bucket', 'n', ...tierColumns(kind)]
    const levels = [LEVEL.raw, ...TIERS.map((_, i) => i + 1)].filter((level) => level !== LEVEL['1m'])
    // tier i (level i + 1) is rolled from level i, the one below it
    source[kind] = byLevel(levels.slice(0, -1), (level) => sqlite.prepare(sourceSql(kind, level)))
    // A bucket rolled again (late data, the look-back) is updated in place: INSERT OR REPLACE
    // deleted the row and appended it at the table's end, writing its old page and the last one.
    // Only when a figure changed: the look-back rolls the last finished minute again at every run,
    // and an UPDATE to the same values still writes the device's page to the log.
    const figures = cols.slice(2)
    insert[kind] = byLevel(levels.slice(1), (level) =>
      sqlite.prepare(
        `INSERT INTO ${levelTable(kind, level)} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
         ON CONFLICT (device_seq, bucket) DO UPDATE SET ${figures.map((c) => `${c} = excluded.${c}`).join(', ')}
         WHERE ${figures.map((c) => `${c} IS NOT excluded.${c}`).join(' OR ')}`,
      ),
    )
    // the oldest row of a level, found by one index seek per device
    // (raw: the rows on disk and the hot ones each by their own index; a correlated subquery over their union scans both)
    oldest[kind] = byLevel(levels, (level) => {
      const first = (table: string) =>
        `(SELECT ${levelTimeColumn(level)} FROM ${table} WHERE device_seq = d.value${kindFilter(kind, level)} ORDER BY ${levelTimeColumn(level)} LIMIT 1)`
      const t = `min(${first(level === LEVEL.raw ? RAW_MAIN : levelTable(kind, level))})`
      const both = level === LEVEL.raw ? `, min(${first(HOT_ROWS)}) AS h` : ''
      return sqlite.prepare<{ t: number | null }, [string]>(`SELECT ${t} AS t${both} FROM json_each(?) d`)
    })
    const pruneSql = (table: string, level: number) =>
      `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE device_seq IN (SELECT value FROM json_each(?2)) AND ${levelTimeColumn(level)} < ?1 LIMIT ?3)`
    prune[kind] = byLevel(levels, (level) => sqlite.prepare(pruneSql(level === LEVEL.raw ? RAW_MAIN : levelTable(kind, level), level)))
    // hot samples past raw retention (late data): out of the reads now; their records go with their segment
    pruneHot = sqlite.prepare(`${pruneSql(HOT_ROWS, LEVEL.raw)} RETURNING id`)
  }
  const getDone = sqlite.query<{ done_until: number }, [string, string]>('SELECT done_until FROM metric_rollups WHERE kind = ? AND tier = ?')
  const setDone = sqlite.query('INSERT OR REPLACE INTO metric_rollups (kind, tier, done_until) VALUES (?, ?, ?)')
  const freelist = sqlite.query<{ freelist_count: number }, []>('PRAGMA freelist_count')
  return {
    /** SQLite's tiers are rolled in whole spans of these (the job's writes at a collector's cadence) */
    steps: ROLL_STEPS,
    /**
     * Rewrites tier `tier` of these devices for every bucket in [a, b) from the level below, in
     * one transaction: `fold` turns the source rows into tier rows.
     */
    roll(kind: MetricKind, tier: number, seqs: number[], a: number, b: number, fold: Fold) {
      // Streamed, not read out whole: a busy hour of raw samples can be hundreds of thousands of
      // rows (tens of MB as arrays). Reading one table while writing another is safe in SQLite.
      // Tier i reads level i: the 10m tier reads the 1-minute tier's coded spans (at most its step's hour of them).
      const rows = tier === LEVEL['1m'] ? minutes.rowsIn(kind, seqs, a, b) : rowArrays(source[kind].get(tier)!.iterate(a, b, seqList(seqs)))
      if (TIERS[tier]!.name !== '1m') {
        const ins = insert[kind].get(tier + 1)!
        return sqlite.transaction(() => fold(rows, (r) => ins.run(...r)))()
      }
      // the 1-minute tier: each device's minutes (the fold emits them device by device) into their spans
      sqlite.transaction(() => {
        let seq = -1
        let mine: SourceRow[] = []
        fold(rows, (r) => {
          if (r[0] !== seq) {
            if (mine.length) minutes.write(kind, seq, mine)
            seq = r[0]!
            mine = []
          }
          mine.push(r.slice(1))
        })
        if (mine.length) minutes.write(kind, seq, mine)
      })()
    },
    /** the time of the oldest row of these devices stored at a level, or null when it holds none */
    oldest(kind: MetricKind, level: number, seqs: number[]): number | null {
      if (level === LEVEL['1m']) return minutes.oldest(kind, seqs)
      const r = oldest[kind].get(level)!.get(seqList(seqs)) as { t: number | null; h?: number | null } | null
      if (!r) return null
      return r.h != null && (r.t === null || r.h < r.t) ? r.h : r.t
    },
    doneUntil: (kind: MetricKind, tier: TierName) => getDone.get(kind, tier)?.done_until ?? null,
    setDone: (kind: MetricKind, tier: TierName, t: number) => void setDone.run(kind, tier, t),
    /**
     * Deletes up to `limit` rows of these devices older than `cutoff` at one level; returns how
     * many (fewer than `limit`: nothing older is left). Raw samples of both kinds share one table,
     * so raw is pruned under 'hardware' only.
     */
    pruneBatch(kind: MetricKind, level: number, seqs: number[], cutoff: number, limit = PRUNE_BATCH): number {
      if (level === LEVEL['1m']) return minutes.prune(kind, seqs, cutoff)
      const n = prune[kind].get(level)!.run(cutoff, seqList(seqs), limit).changes
      if (level !== LEVEL.raw || n >= limit) return n
      // hot samples too, their records marked so that a restart does not bring them back
      const gone = sqlite.transaction(() => {
        const ids = (pruneHot!.all(cutoff, seqList(seqs), limit - n) as { id: number }[]).map((r) => r.id)
        hot.forget(ids)
        return ids.length
      })()
      return n + gone
    },
    /** lets SQLite refresh its statistics after large deletes */
    optimize: () => void sqlite.run('PRAGMA optimize'),
    freePages: () => freelist.get()!.freelist_count,
    /** returns up to `pages` free pages to the file system (auto_vacuum=INCREMENTAL) */
    vacuumStep: (pages: number) => void sqlite.run(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`),
  }
}

export type RollupStore = ReturnType<typeof build>

/**
 * What the rollup and retention jobs need of either engine: the SQLite store above answers at
 * once, the PostgreSQL one (metrics.rollup.store.pg.ts) with promises; the jobs await both.
 */
export interface RollupPort {
  /** the spans each tier is rolled in (see ROLL_STEPS); each tier's width when not given (PostgreSQL) */
  readonly steps?: Partial<Record<TierName, number>>
  roll(kind: MetricKind, tier: number, seqs: number[], a: number, b: number, fold: Fold): void | Promise<void>
  oldest(kind: MetricKind, level: number, seqs: number[]): number | null | Promise<number | null>
  doneUntil(kind: MetricKind, tier: TierName): number | null | Promise<number | null>
  setDone(kind: MetricKind, tier: TierName, t: number): void | Promise<void>
  /** up to `limit` rows (PRUNE_BATCH when not given); fewer when nothing older is left */
  pruneBatch(kind: MetricKind, level: number, seqs: number[], cutoff: number, limit?: number): number | Promise<number>
  /** makes the storage ahead of time where the engine needs it (PostgreSQL's day partitions) */
  ahead?(now: number, keepFrom: number): Promise<void>
  optimize(): void
  freePages(): number
  /** returns up to `pages` free pages to the file system */
  vacuumStep(pages: number): void
}
/** One store (prepared statements) per database connection. */
export const createRollupStore: (sqlite: Database) => RollupStore = perConnection(build)
