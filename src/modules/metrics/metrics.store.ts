import type { Database, SQLQueryBindings } from 'bun:sqlite'
import { FIELDS, RAW_TABLE, TIERS, hasKind, restColumn, tierColumns, tierTable, type MetricKind, type TierName } from './metrics.fields'
import { perConnection } from '../../db/per-connection'
import { PARKED_BITS, createBlockStore } from './metrics.block.store'
import { createHotStore } from './metrics.hot.store'
import { HOT_ROWS, newestRowSql, RAW_MAIN } from './metrics.hot.rows'
import { createHistoryStore } from './metrics.history.store'
import { createPackedStore } from './metrics.packed.store'
import { createLateStore, type LateSpan } from './metrics.late.store'

/**
 * A stored sample as an array in column order: id, ts, hot values..., rest (JSON text or null;
 * for a page read `lazy`, a hot row's rest may be its UTF-8 bytes and a sealed row's its decoded block, a RestWriter).
 */
export type SampleValues = unknown[]
/** [ts, ...hot values], oldest first */
export type RawValues = (number | null)[]
/** [bucket, n, ...tierColumns], oldest first */
export type TierValues = (number | null)[]

/** Prepared reads for one metric kind; every one is a range on (device_seq, time), newest or oldest first. */
function kindReads(sqlite: Database, kind: MetricKind) {
  const raw = RAW_TABLE
  const has = hasKind(kind)
  // a sealed row's rest lives in its block: '' (never a stored rest, which is a JSON object) marks it for the lookup
  const rest = `CASE WHEN ${restColumn(kind)} IS NULL AND (kinds & ${PARKED_BITS}) != 0 THEN '' ELSE ${restColumn(kind)} END AS rest`
  const hot = FIELDS[kind].map((f) => f.name)
  const tierCols = tierColumns(kind)
  const q = <R, P extends SQLQueryBindings[]>(sql: string) => sqlite.query<R, P>(sql)
  return {
    page: q<Record<string, unknown>, [number, number, number, number, number]>(
      `SELECT id, ts, ${hot.join(', ')}, ${rest} FROM ${raw} WHERE device_seq = ? AND ts >= ? AND ts <= ? AND ${has} ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`,
    ),
    hourlyCount: q<{ n: number | null }, [number, number, number]>(
      `SELECT sum(n) AS n FROM ${tierTable(kind, '1h')} WHERE device_seq = ? AND bucket >= ? AND bucket < ?`,
    ),
    oldestTs: q<{ ts: number }, [number]>(`SELECT ts FROM ${raw} WHERE device_seq = ? AND ${has} ORDER BY ts LIMIT 1`),
    latest: q<Record<string, unknown>, [number]>(
      `SELECT id, ts, ${hot.join(', ')}, ${rest} FROM ${raw} WHERE device_seq = ? AND ${has} ORDER BY ts DESC, id DESC LIMIT 1`,
    ),
    rawValues: q<never, [number, number, number]>(
      `SELECT ts, ${hot.join(', ')} FROM ${raw} WHERE device_seq = ? AND ts >= ? AND ts < ? AND ${has} ORDER BY ts`,
    ),
    firstTs: q<{ ts: number }, [number, number, number]>(`SELECT ts FROM ${raw} WHERE device_seq = ? AND ts >= ? AND ts < ? AND ${has} ORDER BY ts LIMIT 1`),
    lastTs: q<{ ts: number }, [number, number, number]>(
      `SELECT ts FROM ${raw} WHERE device_seq = ? AND ts >= ? AND ts < ? AND ${has} ORDER BY ts DESC LIMIT 1`,
    ),
    // the 1-minute tier is read from its coded spans (metrics.packed.store.ts)
    tierValues: new Map(
      TIERS.filter((t) => t.name !== '1m').map((t) => [
        t.name,
        q<never, [number, number, number]>(
          `SELECT bucket, n, ${tierCols.join(', ')} FROM ${tierTable(kind, t.name)} WHERE device_seq = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`,
        ),
      ]),
    ),
    hourly: new Map(
      FIELDS[kind].map((f) => [
        f.name,
        q<{ t: number; avg: number | null }, [number, number, number]>(
          `SELECT bucket AS t, ${f.name}_avg AS avg FROM ${tierTable(kind, '1h')} WHERE device_seq = ? AND bucket >= ? AND bucket < ? AND ${f.name}_n > 0 ORDER BY bucket`,
        ),
      ]),
    ),
    // a device's newest row of the kind by one descent of each (device_seq, ts) index
    latestValues: q<never, [number]>(newestRowSql(`?1, ts, ${hot.join(', ')}`, `device_seq = ?1 AND ${has}`)),
    recentCount: q<{ n: number | null }, [number, string]>(
      `SELECT sum((SELECT count(*) FROM ${RAW_MAIN} WHERE device_seq = d.value AND ts >= ?1 AND ${has}) + (SELECT count(*) FROM ${HOT_ROWS} WHERE device_seq = d.value AND ts >= ?1 AND ${has})) AS n FROM json_each(?2) d`,
    ),
  }
}

/** The metric reads: history pages, latest sample, summaries, series and counts. */
function build(sqlite: Database) {
  createHotStore(sqlite) // the raw table's view
  const reads: Record<MetricKind, ReturnType<typeof kindReads>> = { hardware: kindReads(sqlite, 'hardware'), network: kindReads(sqlite, 'network') }
  const doneUntil = sqlite.query<{ tier: TierName; done_until: number }, [string]>('SELECT tier, done_until FROM metric_rollups WHERE kind = ?')
  const blocks = createBlockStore(sqlite)
  const history = createHistoryStore(sqlite)
  const minutes = createPackedStore(sqlite)
  const late = createLateStore(sqlite)
  return {
    /**
     * One history page, newest first, as arrays (no object per row): see SampleValues. A page
     * past the first is read from the time its first sample is located at (metrics.history.ts),
     * not by stepping over its offset, which reads every row it skips. `lazy` (an answer written
     * at once by writePage): a sealed row's rest is left in its decoded block, which writes it
     * into the answer as bytes, instead of made into a string first (about half of what a page
     * deep in the month allocated).
     */
    page(kind: MetricKind, seq: number, from: number, to: number, limit: number, offset: number, lazy = false) {
      const start = offset === 0 ? to : history.pageStart(kind, seq, from, to, offset)
      const rows =
        start === null
          ? []
          : start === undefined
            ? (reads[kind].page.values(seq, from, to, limit, offset) as SampleValues[])
            : (reads[kind].page.values(seq, from, start, limit, 0) as SampleValues[])
      const at = FIELDS[kind].length + 2
      let read: ((id: number, ts: number, kind: MetricKind) => unknown) | undefined
      for (const row of rows) if (row[at] === '') row[at] = (read ??= lazy ? blocks.writers(seq) : blocks.reader(seq))(row[0] as number, row[1] as number, kind)
      return rows
    },
    /** raw samples in [from, to], counted from the indexes (metrics.history.store.ts) */
    count: (kind: MetricKind, seq: number, from: number, to: number) => history.count(kind, seq, from, to),
    /** samples in [from, to) as the hourly tier counted them: lets a wide total skip counting raw rows */
    hourlyCount: (kind: MetricKind, seq: number, from: number, to: number) => reads[kind].hourlyCount.get(seq, from, to)?.n ?? 0,
    /** the late samples stored and not rolled up yet: the tiers do not count them in that span */
    lateSpan: (kind: MetricKind): LateSpan | null => late.pending(kind),
    oldestTs: (kind: MetricKind, seq: number): number | null => reads[kind].oldestTs.get(seq)?.ts ?? null,
    /** the newest sample as an object (id, ts, hot fields, rest) */
    latest(kind: MetricKind, seq: number) {
      const row = reads[kind].latest.get(seq)
      if (row?.rest === '') row.rest = blocks.reader(seq)(row.id as number, row.ts as number, kind)
      return row
    },
    /** per device with a sample of the kind: [seq, ts, ...hot values] of its newest one, in one statement */
    latestOf(kind: MetricKind, seqs: number[]): RawValues[] {
      const out: RawValues[] = []
      for (const seq of seqs) {
        const row = reads[kind].latestValues.values(seq)[0] as RawValues | undefined
        if (!row) continue
        row.pop() // its id (newestRowSql)
        out.push(row)
      }
      return out
    },
    rawValues: (kind: MetricKind, seq: number, from: number, to: number) => reads[kind].rawValues.values(seq, from, to) as RawValues[],
    /** the first and last raw sample time in [from, to) */
    firstTs: (kind: MetricKind, seq: number, from: number, to: number): number | null => reads[kind].firstTs.get(seq, from, to)?.ts ?? null,
    lastTs: (kind: MetricKind, seq: number, from: number, to: number): number | null => reads[kind].lastTs.get(seq, from, to)?.ts ?? null,
    tierValues: (kind: MetricKind, tier: TierName, seq: number, from: number, to: number) =>
      tier === '1m' ? minutes.deviceRows(kind, seq, from, to) : (reads[kind].tierValues.get(tier)!.values(seq, from, to) as TierValues[]),
    /** hourly averages of one hot field in [from, to), oldest first; undefined for a field that is not hot */
    hourlyAverages(kind: MetricKind, field: string, seq: number, from: number, to: number) {
      return reads[kind].hourly.get(field)?.all(seq, from, to)
    },
    /** samples of these devices stored since `since`, by one index range per device */
    countSince: (kind: MetricKind, seqs: number[], since: number) => reads[kind].recentCount.get(since, JSON.stringify(seqs))?.n ?? 0,
    /** per tier, how far it is rolled up (0 when never) */
    doneUntil(kind: MetricKind): Record<TierName, number> {
      const rows = doneUntil.all(kind)
      const done = {} as Record<TierName, number>
      for (const t of TIERS) done[t.name] = rows.find((r) => r.tier === t.name)?.done_until ?? 0
      return done
    },
  }
}

export type MetricsStore = ReturnType<typeof build>
/** One store (prepared statements) per database connection. */
export const createMetricsStore: (sqlite: Database) => MetricsStore = perConnection(build)
