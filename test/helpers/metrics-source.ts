import type { FieldStats, MetricsSummary } from '../../src/modules/metrics/metrics.summary.model'
import type { MetricsSource, SeriesPoint } from '../../src/modules/ai/ai.metrics-source'

type Stat = number | Partial<FieldStats>
const stat = (v: Stat): FieldStats => {
  if (typeof v === 'number') return { avg: v, min: v, max: v, p95: v, last: v }
  const base = v.avg ?? 0
  return { avg: base, min: base, max: base, p95: base, last: base, ...v }
}

/** A summary as the metrics module would produce it, from a few field statistics. */
export function summaryOf(
  hardware: Record<string, Stat>,
  network: Record<string, Stat> = {},
  opts: { hours?: number; samples?: number; deviceId?: string; to?: number } = {},
): MetricsSummary {
  const hours = opts.hours ?? 24
  const to = opts.to ?? Date.parse('2026-01-01T00:00:00Z')
  const samples = opts.samples ?? 1440
  const section = (fields: Record<string, Stat>) => ({
    samples: Object.keys(fields).length ? samples : 0,
    first_at: new Date(to - hours * 3600_000).toISOString(),
    last_at: new Date(to).toISOString(),
    fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, stat(v)])),
  })
  return {
    device_id: opts.deviceId ?? 'dev_x',
    hours,
    from: new Date(to - hours * 3600_000).toISOString(),
    to: new Date(to).toISOString(),
    resolution: 'raw',
    hardware: section(hardware),
    network: { ...section(network), bytes_sent_delta: null, bytes_recv_delta: null },
  }
}

/** Hourly points ending at `end`: value(i) for i = 0..n-1, oldest first. */
export function hourly(n: number, value: (i: number) => number, end = Date.parse('2026-01-01T00:00:00Z')): SeriesPoint[] {
  return Array.from({ length: n }, (_, i) => ({ t: end - (n - 1 - i) * 3600_000, avg: value(i) }))
}

/** A MetricsSource serving one seeded summary and series for any device. */
export function seededSource(summary: MetricsSummary | null, series: Record<string, SeriesPoint[]> = {}): MetricsSource & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    read: (_c, d, h) => {
      calls.push(`summary:${d}:${h}`)
      return { summary: summary ? { ...summary, device_id: d } : null, series: (field) => series[field] ?? [] }
    },
  }
}
