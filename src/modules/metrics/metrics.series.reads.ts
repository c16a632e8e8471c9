import type { MetricKind, TierName } from './metrics.fields'
import type { BlockMinutes } from './metrics.minutes'
import type { SeriesStore } from './metrics.series.store'

/**
 * The chart reads of one device's series on either engine (metrics.series.store.ts on SQLite,
 * metrics.series.store.pg.ts on PostgreSQL), with the same answers: see SeriesStore for each.
 */
export interface SeriesReads {
  recentTimes(seq: number): Promise<number[]>
  tierRows(kind: MetricKind, tier: TierName, fields: string[], seq: number, from: number, to: number): Promise<(number | null)[][]>
  rawRows(kind: MetricKind, fields: string[], families: string[], seq: number, from: number, to: number, limit: number): Promise<unknown[][]>
  /** the oldest sample in [from, to) not sealed into its block: on PostgreSQL, which seals none, the first sample */
  firstUnsealed(seq: number, from: number, to: number): Promise<number | null>
  nestedMinutes(seq: number, from: number, to: number): Promise<BlockMinutes[]>
}

/** The SQLite store behind the asynchronous interface: each read runs at once, as before. */
export function sqliteSeriesReads(store: SeriesStore): SeriesReads {
  return {
    recentTimes: async (...a) => store.recentTimes(...a),
    tierRows: async (...a) => store.tierRows(...a),
    rawRows: async (...a) => store.rawRows(...a),
    firstUnsealed: async (...a) => store.firstUnsealed(...a),
    nestedMinutes: async (...a) => store.nestedMinutes(...a),
  }
}
