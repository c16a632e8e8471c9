import type { MetricsSummary } from '../metrics/metrics.summary.model'

/** One hourly point of a metric field: t = hour start (ms), avg = the hour's mean. */
export interface SeriesPoint {
  t: number
  avg: number
}

/**
 * What the recommendation engine reads from the metrics domain (summaryOf / fieldSeriesReader).
 * A port, so the engine is tested on seeded histories. The summary is awaited; the rules then ask
 * for series synchronously, and the wired source answers them from what it read with the summary
 * of the same device (its hourly tier over a week, the longest window a rule looks at).
 */
export interface MetricsSource {
  summary(clientId: string, deviceId: string, hours: number): MetricsSummary | null | Promise<MetricsSummary | null>
  series(clientId: string, deviceId: string, field: string, hours: number): SeriesPoint[]
}
