import type { MetricsSummary } from '../metrics/metrics.summary.model'

/** One hourly point of a metric field: t = hour start (ms), avg = the hour's mean. */
export interface SeriesPoint {
  t: number
  avg: number
}

/**
 * What the recommendation engine reads from the metrics domain (summarizeDevice / fieldSeries).
 * A port, so the engine is tested on seeded histories.
 */
export interface MetricsSource {
  summary(clientId: string, deviceId: string, hours: number): MetricsSummary | null
  series(clientId: string, deviceId: string, field: string, hours: number): SeriesPoint[]
}
