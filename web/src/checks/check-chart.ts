import type { ChartSpec } from '../charts/series'
import type { CheckSeries } from './types'

/** The ranges GET /v1/checks/{id}/series takes, shortest first; the page's `?range=`. */
export const CHECK_RANGES = ['1h', '6h', '24h', '7d', '30d', '90d', '365d'] as const
export type CheckRange = (typeof CHECK_RANGES)[number]
export const DEFAULT_CHECK_RANGE: CheckRange = '24h'

export const parseCheckRange = (v: string | null | undefined): CheckRange =>
  (CHECK_RANGES as readonly string[]).includes(v ?? '') ? (v as CheckRange) : DEFAULT_CHECK_RANGE

const RANGE_SECONDS: Record<CheckRange, number> = {
  '1h': 3600,
  '6h': 6 * 3600,
  '24h': 86400,
  '7d': 7 * 86400,
  '30d': 30 * 86400,
  '90d': 90 * 86400,
  '365d': 365 * 86400,
}

/** The chart's window in unix seconds: the range ending at `nowMs`. */
export function checkWindow(range: CheckRange, nowMs: number): [number, number] {
  const end = Math.floor(nowMs / 1000)
  return [end - RANGE_SECONDS[range], end]
}

/**
 * The response-time chart from the series answer: the average and the slowest attempt of each
 * step. A step without a successful attempt is null, drawn as a gap (never a line across an outage).
 */
export function responseChart(series: CheckSeries): ChartSpec {
  const t = series.points.map((p) => Math.floor(Date.parse(p.t) / 1000))
  return {
    id: 'response-time',
    section: 'Network',
    title: 'Average and slowest answer',
    unit: 'ms',
    t,
    lines: [
      { name: 'avg_ms', label: 'Average', values: series.points.map((p) => p.avg_ms) },
      { name: 'max_ms', label: 'Slowest', values: series.points.map((p) => p.max_ms) },
    ],
    zero: true,
    step: series.step_s,
  }
}
