/**
 * One container's charts (CPU, memory, network, block I/O) from its series, in the device charts'
 * own shape so they share the Chart component, the window and the cursor. Pure.
 */
import type { ChartLine, ChartSpec, Column } from '../charts/series'
import type { ContainerSeries } from './types'

/**
 * The series with a null where the container sent nothing for longer than ~2.5 steps (stopped,
 * the collector down), so a line breaks across the outage instead of bridging it: the hub lists
 * only the blocks that carried the container.
 */
export function withGaps(s: Pick<ContainerSeries, 't' | 'values' | 'max' | 'step_seconds'>): Pick<ContainerSeries, 't' | 'values' | 'max'> {
  const step = Math.max(0, s.step_seconds)
  if (step === 0 || s.t.length < 2) return s
  const t: number[] = []
  const values: Record<string, Column> = Object.fromEntries(Object.keys(s.values).map((k) => [k, []]))
  const max: Record<string, Column> = Object.fromEntries(Object.keys(s.max).map((k) => [k, []]))
  for (let i = 0; i < s.t.length; i++) {
    const at = s.t[i]!
    if (i > 0 && at - s.t[i - 1]! > 2.5 * step) {
      t.push(s.t[i - 1]! + 1)
      for (const k in values) values[k]!.push(null)
      for (const k in max) max[k]!.push(null)
    }
    t.push(at)
    for (const k in values) values[k]!.push(s.values[k]![i] ?? null)
    for (const k in max) max[k]!.push(s.max[k]![i] ?? null)
  }
  return { t, values, max }
}

const known = (c: Column | undefined): c is Column => !!c && c.some((v) => v != null)

/**
 * The charts of a container. On rollups the per-bucket peak of CPU and memory is drawn beside the
 * average (a spike a minute's average hides). Without memory accounting there is no memory chart:
 * the page says why instead of drawing zeros.
 */
export function containerCharts(id: string, series: ContainerSeries, memoryAccounted: boolean): ChartSpec[] {
  const s = withGaps(series)
  const line = (name: string, label: string, col = s.values[name]): ChartLine | null => (known(col) ? { name, label, values: col } : null)
  const make = (key: string, section: ChartSpec['section'], title: string, unit: ChartSpec['unit'], lines: (ChartLine | null)[]): ChartSpec | null => {
    const kept = lines.filter((l): l is ChartLine => l !== null)
    return kept.length ? { id: `container-${id}-${key}`, section, title, unit, zero: true, t: s.t, step: series.step_seconds, lines: kept } : null
  }
  const charts = [
    make('cpu', 'CPU', 'CPU (100% = one core)', 'percent', [line('cpu_percent', 'CPU'), line('cpu_percent_max', 'CPU peak', s.max.cpu_percent)]),
    memoryAccounted
      ? make('memory', 'Memory', 'Memory used', 'bytes', [
          line('memory_used_bytes', 'used'),
          line('memory_used_bytes_max', 'peak', s.max.memory_used_bytes),
          line('memory_limit_bytes', 'limit'),
        ])
      : null,
    make('network', 'Network', 'Network', 'bytes_per_s', [line('net_rx_bytes_per_sec', 'received'), line('net_tx_bytes_per_sec', 'sent')]),
    make('block', 'Disk', 'Block I/O', 'bytes_per_s', [line('block_read_bytes_per_sec', 'read'), line('block_write_bytes_per_sec', 'written')]),
  ]
  return charts.filter((c): c is ChartSpec => c !== null)
}
