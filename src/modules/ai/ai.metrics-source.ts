import type { MetricsSummary } from '../metrics/metrics.summary.model'

/** One hourly point of a metric field: t = hour start (ms), avg = the hour's mean. */
export interface SeriesPoint {
  t: number
  avg: number
}

/** What the rules read of one device: its summary, and its fields' hourly series (asked synchronously). */
export interface DeviceMetrics {
  summary: MetricsSummary | null
  series(field: string, hours: number): SeriesPoint[]
}

/**
 * What the recommendation engine reads from the metrics domain (summaryOf / fieldSeriesReader).
 * A port, so the engine is tested on seeded histories. One read per device hands back the
 * summary and a series reader over what it read (the hourly tier over a week, the longest window
 * a rule looks at), so the rules' synchronous series never go back to the database.
 */
export interface MetricsSource {
  read(clientId: string, deviceId: string, hours: number): DeviceMetrics | Promise<DeviceMetrics>
}
