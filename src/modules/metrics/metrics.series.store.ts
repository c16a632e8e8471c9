import type { Database, Statement } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { PARKED_BITS, blockStart, createBlockStore, type BlockStore } from './metrics.block.store'
import type { BlockMinutes } from './metrics.minutes'
import { createHotStore } from './metrics.hot.store'
import { newestRowSql } from './metrics.hot.rows'
import { fleetMemory } from './metrics.fleet.memory'
import { KIND_BIT, RAW_TABLE, hasKind, restColumn, tierColumns, tierTable, type MetricKind, type TierName } from './metrics.fields'
import { createPackedStore } from './metrics.packed.store'

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
  createHotStore(sqlite) // the raw table's view
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
  // per device the newest sample of each kind (one index descent each; usually the same row), only the figures the overview shows
  const newest = (bit: number, cols: string) => sqlite.query<never, [number]>(newestRowSql(`ts, ${cols}`, `device_seq = ? AND (kinds & ${bit}) != 0`))
  const newestHw = newest(KIND_BIT.hardware, 'cpu_percent, ram_percent, disk_used_percent, cpu_temp_c')
  const newestNet = newest(KIND_BIT.network, 'download_mbps, upload_mbps, latency_avg_ms, packet_loss_percent')
  const noHw = [null, null, null, null, null]
  /** the newest row's time and figures, its trailing id dropped (newestRowSql) */
  const newestOf = (q: typeof newestHw, seq: number): (number | null)[] => {
    const row = q.values(seq)[0] as (number | null)[] | undefined
    if (!row) return noHw
    row.pop()
    return row
  }
  const minutes = createPackedStore(sqlite)
  /** where a column lies among a coded minute's values (n, then the tier's columns) */
  const at = (kind: MetricKind, col: string) => 1 + tierColumns(kind).indexOf(col)
  const cpu = [at('hardware', 'cpu_percent_avg'), at('hardware', 'cpu_percent_n')]
  const sparkRaw = sqlite.query<never, [string, number, number]>(
    `SELECT device_seq, ts, cpu_percent FROM ${RAW_TABLE}
     WHERE device_seq IN (SELECT value FROM json_each(?1)) AND ts >= ?2 AND ts < ?3 AND ${hasKind('hardware')} AND cpu_percent IS NOT NULL`,
  )
  const blocks = createBlockStore(sqlite)
  return {
    // the fleet overview's intervals and CPU minutes, kept per connection like the prepared statements
    ...fleetMemory(),
    /** [bucket, (avg, min, max, n) per field] of one tier in [from, to), oldest first */
    tierRows(kind: MetricKind, tier: TierName, fields: string[], seq: number, from: number, to: number): (number | null)[][] {
      if (tier === '1m')
        return minutes.deviceRows(
          kind,
          seq,
          from,
          to,
          fields.flatMap((f) => ['avg', 'min', 'max', 'n'].map((s) => at(kind, `${f}_${s}`))),
        )
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
        // with families: the row id and whether its rest lives in its block, taken off again below
        if (families.length) cols.push('id', `${rest} IS NULL AND (kinds & ${PARKED_BITS}) != 0`)
        return `SELECT ${cols.join(', ')} FROM ${RAW_TABLE} WHERE device_seq = ? AND ts >= ? AND ts < ? AND (kinds & ${KIND_BIT[kind]}) != 0 ORDER BY ts LIMIT ?`
      })
      const rows = s.values(seq, from, to, limit) as unknown[][]
      if (families.length) sealedFamilies(rows, kind, fields.length, families, () => blocks.reader(seq))
      return rows
    },
    /** the nested families per minute of the sealed blocks overlapping [from, to), oldest first (metrics.minutes.ts) */
    nestedMinutes: (seq: number, from: number, to: number): BlockMinutes[] => blocks.nestedMinutes(seq, blockStart(from), to),
    /** the time of the device's oldest sample in [from, to) not yet sealed into its block (and its minutes), or null */
    firstUnsealed: (seq: number, from: number, to: number) => blocks.firstUnsealed(seq, from, to),
    /** the newest RECENT_TIMES sample times of a device (either kind), newest first */
    recentTimes: (seq: number) => (recent.values(seq) as number[][]).map((r) => r[0]!),
    /** per device its newest RECENT_TIMES sample times, as [seq, ts] rows */
    recentTimesOf(seqs: number[]): [number, number][] {
      const out: [number, number][] = []
      for (const seq of seqs) for (const r of recent.values(seq) as number[][]) out.push([seq, r[0]!])
      return out
    },
    /**
     * Per device [seq, hardware ts, cpu_percent, ram_percent, disk_used_percent, cpu_temp_c,
     * network ts, download_mbps, upload_mbps, latency_avg_ms, packet_loss_percent] of its newest
     * sample of each kind (nulls for a kind it never sent), in the order given.
     */
    fleetLatest: (seqs: number[]) => seqs.map((seq) => [seq, ...newestOf(newestHw, seq), ...newestOf(newestNet, seq)]),
    /** [seq, minute, cpu_percent average] of the 1m tier in [from, to) */
    cpuMinutes: (seqs: number[], from: number, to: number) =>
      minutes
        .rowsIn('hardware', seqs, from, to, cpu)
        .filter((r) => r[3]! > 0)
        .map((r) => [r[0], r[1], r[2]] as [number, number, number]),
    /** [seq, ts, cpu_percent] of raw samples in [from, to) */
    cpuSamples: (seqs: number[], from: number, to: number) => sparkRaw.values(JSON.stringify(seqs), from, to) as [number, number, number][],
  }
}

/**
 * Fills in the families of sealed rows from their blocks, as `->` gives them (the member's JSON
 * text, null when absent), and takes the two trailing helper columns off every row.
 */
function sealedFamilies(rows: unknown[][], kind: MetricKind, fields: number, families: string[], reader: () => ReturnType<BlockStore['reader']>) {
  let read: ReturnType<BlockStore['reader']> | undefined
  for (const row of rows) {
    const sealed = row.pop()
    const id = row.pop() as number
    if (!sealed) continue
    const text = (read ??= reader())(id, row[0] as number, kind)
    const rest = text === null ? {} : (JSON.parse(text) as Record<string, unknown>)
    for (let f = 0; f < families.length; f++) {
      const v = rest[families[f]!]
      row[1 + fields + f] = v === undefined ? null : JSON.stringify(v)
    }
  }
}

export type SeriesStore = ReturnType<typeof build>
/** One store (prepared statements) per database connection. */
export const createSeriesStore: (sqlite: Database) => SeriesStore = perConnection(build)
