import type { MetricsSummary } from '../metrics/metrics.summary.model'

/** One hourly point of a metric field: t = hour start (ms), avg = the hour's mean. */
export interface SeriesPoint {
  t: number
  avg: number
}

/**
 * What the recommendation engine reads from the metrics domain. Injected through AppContext so
 * the engine is tested on seeded histories; the metrics module supplies the real one
 * (summarizeDevice / fieldSeries).
 */
export interface MetricsSource {
  summary(clientId: string, deviceId: string, hours: number): MetricsSummary | null
  series(clientId: string, deviceId: string, field: string, hours: number): SeriesPoint[]
}

/** Until the metrics module is wired: no data, so only the availability rule can speak. */
export const noMetrics: MetricsSource = {
  summary: () => null,
  series: () => [],
}
