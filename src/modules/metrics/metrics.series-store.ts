import type { Database, Statement } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { KIND_BIT, RAW_TABLE, hasKind, restColumn, tierTable, type MetricKind, type TierName } from './metrics.fields'

/** Prepared statements kept per field set; past this many the cache starts over (a client cannot grow it without bound). */
const MAX_STATEMENTS = 256
/** Recent sample times read to measure a device's reporting interval. */
export const RECENT_TIMES = 8

/**
 * The chart reads: each a range on (device_seq, time), oldest first, as arrays (no object per
 * row), selecting only the columns asked for. Names reaching the SQL are checked by the service
 * against the field lists first; statements are prepared once per field set.
 */
function build(sqlite: Database) {
  const cache = new Map<string, Statement>()
  const prepared = (key: string, sql: () => string): Statement => {
    let s = cache.get(key)
    if (!s) {
      if (cache.size >= MAX_STATEMENTS) {
        for (const old of cache.values()) old.finalize()
        cache.clear()
      }
      s = sqlite.prepare(sql())
      cache.set(key, s)
    }
    return s
  }
  const recent = sqlite.query<never, [number]>(`SELECT ts FROM ${RAW_TABLE} WHERE device_seq = ? ORDER BY ts DESC LIMIT ${RECENT_TIMES}`)
  // per device its RECENT_TIMES newest times, by one index range each (the lower bound is one seek)
  const recentOf = sqlite.query<never, [string]>(
    `SELECT d.value, s.ts FROM json_each(?1) d JOIN ${RAW_TABLE} s ON s.device_seq = d.value AND s.ts >= coalesce(
       (SELECT ts FROM ${RAW_TABLE} WHERE device_seq = d.value ORDER BY ts DESC LIMIT 1 OFFSET ${RECENT_TIMES - 1}), -9007199254740991)`,
  )
  const sparkTier = sqlite.query<never, [string, number, number]>(
    `SELECT device_seq, bucket, cpu_percent_avg FROM ${tierTable('hardware', '1m')}
     WHERE device_seq IN (SELECT value FROM json_each(?1)) AND bucket >= ?2 AND bucket < ?3 AND cpu_percent_n > 0`,
  )
  const sparkRaw = sqlite.query<never, [string, number, number]>(
    `SELECT device_seq, ts, cpu_percent FROM ${RAW_TABLE}
     WHERE device_seq IN (SELECT value FROM json_each(?1)) AND ts >= ?2 AND ts < ?3 AND ${hasKind('hardware')} AND cpu_percent IS NOT NULL`,
  )
  return {
    /** [bucket, (avg, min, max, n) per field] of one tier in [from, to), oldest first */
    tierRows(kind: MetricKind, tier: TierName, fields: string[], seq: number, from: number, to: number): (number | null)[][] {
      const s = prepared(`t|${kind}|${tier}|${fields.join(',')}`, () => {
        const cols = fields.flatMap((f) => [`${f}_avg`, `${f}_min`, `${f}_max`, `${f}_n`])
        return `SELECT bucket, ${cols.join(', ')} FROM ${tierTable(kind, tier)} WHERE device_seq = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`
      })
      return s.values(seq, from, to) as (number | null)[][]
    },
    /**
     * [ts, ...hot fields, ...families as JSON text] of raw samples carrying the kind in [from, to),
     * oldest first, at most `limit`. Only the families asked for leave SQLite (`->` extracts them),
     * not the whole JSON column.
     */
    rawRows(kind: MetricKind, fields: string[], families: string[], seq: number, from: number, to: number, limit: number): unknown[][] {
      const s = prepared(`r|${kind}|${fields.join(',')}|${families.join(',')}`, () => {
        const rest = restColumn(kind)
        const cols = ['ts', ...fields, ...families.map((f) => `${rest} -> '$.${f}'`)]
        return `SELECT ${cols.join(', ')} FROM ${RAW_TABLE} WHERE device_seq = ? AND ts >= ? AND ts < ? AND (kinds & ${KIND_BIT[kind]}) != 0 ORDER BY ts LIMIT ?`
      })
      return s.values(seq, from, to, limit) as unknown[][]
    },
    /** the newest RECENT_TIMES sample times of a device (either kind), newest first */
    recentTimes: (seq: number) => (recent.values(seq) as number[][]).map((r) => r[0]!),
    /** per device its newest RECENT_TIMES sample times, as [seq, ts] rows */
    recentTimesOf: (seqs: number[]) => recentOf.values(JSON.stringify(seqs)) as [number, number][],
    /** [seq, minute, cpu_percent average] of the 1m tier in [from, to) */
    cpuMinutes: (seqs: number[], from: number, to: number) => sparkTier.values(JSON.stringify(seqs), from, to) as [number, number, number][],
    /** [seq, ts, cpu_percent] of raw samples in [from, to) */
    cpuSamples: (seqs: number[], from: number, to: number) => sparkRaw.values(JSON.stringify(seqs), from, to) as [number, number, number][],
  }
}

export type SeriesStore = ReturnType<typeof build>
/** One store (prepared statements) per database connection. */
export const createSeriesStore: (sqlite: Database) => SeriesStore = perConnection(build)
