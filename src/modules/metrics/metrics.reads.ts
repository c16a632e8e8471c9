import type { MetricKind, TierName } from './metrics.fields'
import type { LateSpan } from './metrics.late.store'
import type { MetricsStore, RawValues, SampleValues, TierValues } from './metrics.store'
import type { TierRowsCache } from './metrics.summary.cache'

/**
 * The metric reads on either engine (metrics.store.ts on SQLite, metrics.store.pg.ts on
 * PostgreSQL), one asynchronous interface with the same answers: see MetricsStore for each.
 */
export interface MetricsReads {
  /** `lazy`: the rows go straight to writePage (a rest may be a RestWriter); an engine may ignore it */
  page(kind: MetricKind, seq: number, from: number, to: number, limit: number, offset: number, lazy?: boolean): Promise<SampleValues[]>
  count(kind: MetricKind, seq: number, from: number, to: number): Promise<number>
  hourlyCount(kind: MetricKind, seq: number, from: number, to: number): Promise<number>
  /** the late samples stored and not rolled up yet (metric_late) */
  lateSpan(kind: MetricKind): Promise<LateSpan | null>
  oldestTs(kind: MetricKind, seq: number): Promise<number | null>
  latest(kind: MetricKind, seq: number): Promise<Record<string, unknown> | null | undefined>
  latestOf(kind: MetricKind, seqs: number[]): Promise<RawValues[]>
  rawValues(kind: MetricKind, seq: number, from: number, to: number): Promise<RawValues[]>
  firstTs(kind: MetricKind, seq: number, from: number, to: number): Promise<number | null>
  lastTs(kind: MetricKind, seq: number, from: number, to: number): Promise<number | null>
  tierValues(kind: MetricKind, tier: TierName, seq: number, from: number, to: number): Promise<TierValues[]>
  hourlyAverages(kind: MetricKind, field: string, seq: number, from: number, to: number): Promise<{ t: number; avg: number | null }[] | undefined>
  countSince(kind: MetricKind, seqs: number[], since: number): Promise<number>
  doneUntil(kind: MetricKind): Promise<Record<TierName, number>>
}

/**
 * The SQLite store behind the asynchronous interface: each read runs at once, as before.
 * `tiers`: the stored rollup rows and hourly counts kept between requests
 * (metrics.summary.cache.ts); their answers are shared, so no caller of tierValues changes the
 * rows it gets.
 */
export function sqliteMetricsReads(store: MetricsStore, tiers?: TierRowsCache): MetricsReads {
  return {
    page: async (...a) => store.page(...a),
    count: async (...a) => store.count(...a),
    hourlyCount: async (...a) => (tiers ? tiers.hourlyCount(...a, () => store.hourlyCount(...a)) : store.hourlyCount(...a)),
    lateSpan: async (...a) => store.lateSpan(...a),
    oldestTs: async (...a) => store.oldestTs(...a),
    latest: async (...a) => store.latest(...a),
    latestOf: async (...a) => store.latestOf(...a),
    rawValues: async (...a) => store.rawValues(...a),
    firstTs: async (...a) => store.firstTs(...a),
    lastTs: async (...a) => store.lastTs(...a),
    tierValues: async (...a) => (tiers ? tiers.tierValues(...a, () => store.tierValues(...a)) : store.tierValues(...a)),
    hourlyAverages: async (...a) => store.hourlyAverages(...a),
    countSince: async (...a) => store.countSince(...a),
    doneUntil: async (...a) => store.doneUntil(...a),
  }
}
