import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { KIND_BIT, type MetricKind } from './metrics.fields'
import { pageStart } from './metrics.history'
import { openHourCounts } from './metrics.history.hours'
import { createHotStore } from './metrics.hot.store'
import { HOT_ROWS, RAW_MAIN } from './metrics.hot.rows'

/**
 * Rows of one part only, or hot samples, that a page's range may hold for its start to be located
 * from the index (metrics.history.ts); past this it steps over its offset as before. A collector
 * sends both parts in one batch and its hot samples are its last hour or two (a replay adds a
 * few hours more), so the bound is met but where a device sends its parts apart.
 */
export const LOCATE_CAP = 4096
/** The partial index of the raw table's rows carrying one part (metrics.table.ts); the condition must read as its own. */
const ONE_KIND = '(kinds & 3) != 3'

/** Per kind: the statements that locate a page and count a range by the indexes alone. */
function kindStatements(sqlite: Database, kind: MetricKind) {
  const bit = KIND_BIT[kind]
  const range = 'device_seq = ?1 AND ts >= ?2 AND ts <= ?3'
  return {
    lacking: sqlite.query<never, [number, number, number, number]>(
      `SELECT ts FROM ${RAW_MAIN} WHERE ${range} AND ${ONE_KIND} AND (kinds & ${bit}) = 0 ORDER BY ts DESC LIMIT ?4`,
    ),
    hot: sqlite.query<never, [number, number, number, number]>(`SELECT ts FROM ${HOT_ROWS} WHERE ${range} AND (kinds & ${bit}) != 0 ORDER BY ts DESC LIMIT ?4`),
    count: sqlite.query<{ n: number }, [number, number, number]>(
      `SELECT (SELECT count(*) FROM ${RAW_MAIN} WHERE ${range})
            - (SELECT count(*) FROM ${RAW_MAIN} WHERE ${range} AND ${ONE_KIND} AND (kinds & ${bit}) = 0)
            + (SELECT count(*) FROM ${HOT_ROWS} WHERE ${range} AND (kinds & ${bit}) != 0) AS n`,
    ),
  }
}

function build(sqlite: Database) {
  createHotStore(sqlite) // the raw table's view and the hot samples' table
  const hours = openHourCounts(sqlite)
  const byKind: Record<MetricKind, ReturnType<typeof kindStatements>> = {
    hardware: kindStatements(sqlite, 'hardware'),
    network: kindStatements(sqlite, 'network'),
  }
  const times = (rows: unknown[][]) => rows.map((r) => r[0] as number)
  return {
    /**
     * The time of the `offset`-th sample of the kind in [from, to], newest first (a page read
     * from there on, without an offset, is the page), null when there is none, undefined when the
     * range holds more than LOCATE_CAP hot samples or rows without the kind (the caller steps).
     */
    pageStart(kind: MetricKind, seq: number, from: number, to: number, offset: number): number | null | undefined {
      const s = byKind[kind]
      const lacking = times(s.lacking.values(seq, from, to, LOCATE_CAP + 1))
      if (lacking.length > LOCATE_CAP) return undefined
      // the page starts at one of the newest offset + 1 of them at the latest: the older ones are never looked at
      const hot = times(s.hot.values(seq, from, to, Math.min(offset, LOCATE_CAP) + 1))
      if (hot.length > LOCATE_CAP) return undefined
      return pageStart({ mainAt: (p) => hours.at(seq, from, to, p), lacking, hot }, offset)
    },
    /**
     * Samples of the kind in [from, to]: the raw table's index entries less its rows without the
     * kind, plus the hot samples; no row of the raw table is read.
     */
    count: (kind: MetricKind, seq: number, from: number, to: number): number => byKind[kind].count.get(seq, from, to)!.n,
  }
}

export type HistoryStore = ReturnType<typeof build>
/** One store (prepared statements) per database connection. */
export const createHistoryStore: (sqlite: Database) => HistoryStore = perConnection(build)
