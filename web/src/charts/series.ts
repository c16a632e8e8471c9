import { unitOf, type Unit } from './units'

import type { SeriesResponse } from '../../../src/modules/metrics/metrics.series.model'

/** The answer of GET /v1/metrics/series/{device_id} (times in unix seconds, as uPlot takes them), as the server's model declares it. */
export type { SeriesResponse }

export type Column = (number | null)[]

export interface ChartLine {
  /** the series name (`cpu_per_core:3`) */
  name: string
  label: string
  values: Column
  /** min/max of each bucket: drawn as a band behind the line when present (rollup tiers) */
  min?: Column
  max?: Column
}

export type Section = 'CPU' | 'Memory' | 'Disk' | 'Sensors' | 'GPU' | 'Network'

export interface ChartSpec {
  id: string
  section: Section
  title: string
  unit: Unit
  t: number[]
  lines: ChartLine[]
  /** a fixed y range (percentages); else the data's own */
  y?: [number, number]
  /** the y axis starts at zero (rates, loss) */
  zero?: boolean
  step: number
  /** live samples merged into the newest bucket so far (rollup levels) */
  merged?: number
}

/** What the device page asks the series endpoint for. */
export const HARDWARE_FIELDS = [
  'cpu_percent',
  'cpu_per_core',
  'ram_percent',
  'swap_percent',
  'disk_partitions',
  'disk_io',
  'cpu_temp_c',
  'temperatures',
  'fans',
  'gpu_load',
  'gpus',
]
export const NETWORK_FIELDS = ['download_mbps', 'upload_mbps', 'latency_avg_ms', 'packet_loss_percent', 'dns_resolve_ms', 'wifi', 'interfaces']

const hasData = (c: Column | undefined): c is Column => !!c && c.some((v) => v != null)

/** Series of a family (`disk_partitions:/home` → key `/home`), in a natural order (core 2 before core 10). */
function family(r: SeriesResponse | null, name: string): { name: string; key: string }[] {
  if (!r) return []
  const prefix = `${name}:`
  return Object.keys(r.values)
    .filter((n) => n.startsWith(prefix))
    .map((n) => ({ name: n, key: n.slice(prefix.length) }))
    .sort((a, b) => a.key.localeCompare(b.key, undefined, { numeric: true }))
}

function line(r: SeriesResponse, name: string, label: string, band = false): ChartLine | null {
  const values = r.values[name]
  if (!hasData(values)) return null
  const l: ChartLine = { name, label, values }
  const min = r.min[name]
  const max = r.max[name]
  if (band && hasData(min) && hasData(max)) {
    l.min = min
    l.max = max
  }
  return l
}

type Draft = Omit<ChartSpec, 't' | 'lines' | 'step'> & { lines: (ChartLine | null)[] }

function finish(r: SeriesResponse | null, d: Draft): ChartSpec | null {
  const lines = d.lines.filter((l): l is ChartLine => l !== null)
  if (!r || lines.length === 0) return null
  return { ...d, lines, t: r.t, step: r.step_seconds }
}

/** Splits a family whose keys carry different units (GPU load %, memory bytes, °C) into one chart per unit. */
function byUnit(r: SeriesResponse | null, names: { name: string; label: string }[], make: (unit: Unit) => Omit<Draft, 'lines' | 'unit'>): (ChartSpec | null)[] {
  if (!r) return []
  const groups = new Map<Unit, (ChartLine | null)[]>()
  for (const n of names) {
    const unit = unitOf(n.name)
    const list = groups.get(unit) ?? []
    list.push(line(r, n.name, n.label))
    groups.set(unit, list)
  }
  return [...groups].map(([unit, lines]) => finish(r, { ...make(unit), unit, lines, y: unit === 'percent' ? [0, 100] : undefined }))
}

const pretty = (key: string) => key.replace(/_/g, ' ')

/** disk_io's rates: `read_bytes_per_sec` → read; a per-disk key keeps its disk (`sda read`). */
const IO_TITLES: Partial<Record<Unit, string>> = { bytes_per_s: 'Disk throughput', per_s: 'Disk operations', percent: 'Disk busy' }
function diskIo(hw: SeriesResponse): (ChartSpec | null)[] {
  const all = family(hw, 'disk_io')
  // totals when the collector sends them, else each disk
  const totals = all.filter((f) => !f.key.includes(':'))
  const rank = (name: string) => ['bytes_per_s', 'per_s', 'percent'].indexOf(unitOf(name))
  const chosen = (totals.length > 0 ? totals : all).sort((a, b) => rank(a.name) - rank(b.name))
  const label = (key: string) =>
    key
      .replace(/_bytes_per_sec$|_ops_per_sec$|_percent$/, '')
      .replace(/:/g, ' ')
      .replace(/_/g, ' ')
  return byUnit(
    hw,
    chosen.map((f) => ({ name: f.name, label: label(f.key) })),
    (unit) => ({ id: `disk-io:${unit}`, section: 'Disk', title: IO_TITLES[unit] ?? 'Disk I/O', zero: true }),
  )
}

/**
 * The device's charts, grouped as Grafana's "Node Exporter Full" groups them (CPU, memory, disks,
 * sensors, GPU, network). A chart whose series hold no value in the window is left out.
 */
export function buildCharts(hw: SeriesResponse | null, net: SeriesResponse | null): ChartSpec[] {
  const charts: (ChartSpec | null)[] = []
  if (hw) {
    charts.push(finish(hw, { id: 'cpu', section: 'CPU', title: 'CPU usage', unit: 'percent', y: [0, 100], lines: [line(hw, 'cpu_percent', 'CPU', true)] }))
    charts.push(
      finish(hw, {
        id: 'cpu-cores',
        section: 'CPU',
        title: 'CPU per core',
        unit: 'percent',
        y: [0, 100],
        lines: family(hw, 'cpu_per_core').map((f) => line(hw, f.name, `core ${f.key}`)),
      }),
    )
    charts.push(
      finish(hw, {
        id: 'memory',
        section: 'Memory',
        title: 'Memory and swap',
        unit: 'percent',
        y: [0, 100],
        lines: [line(hw, 'ram_percent', 'memory', true), line(hw, 'swap_percent', 'swap')],
      }),
    )
    for (const f of family(hw, 'disk_partitions')) {
      charts.push(finish(hw, { id: `disk:${f.key}`, section: 'Disk', title: `Disk ${f.key}`, unit: 'percent', y: [0, 100], lines: [line(hw, f.name, 'used')] }))
    }
    charts.push(...diskIo(hw))
    const temps = family(hw, 'temperatures').map((f) => line(hw, f.name, f.key.replace(/:/g, ' ')))
    if (!temps.some(Boolean)) temps.push(line(hw, 'cpu_temp_c', 'CPU'))
    charts.push(finish(hw, { id: 'temperatures', section: 'Sensors', title: 'Temperatures', unit: 'celsius', lines: temps }))
    charts.push(
      finish(hw, {
        id: 'fans',
        section: 'Sensors',
        title: 'Fans',
        unit: 'rpm',
        zero: true,
        lines: family(hw, 'fans').map((f) => line(hw, f.name, f.key.replace(/:/g, ' '))),
      }),
    )
    const gpus = family(hw, 'gpus').map((f) => {
      const [index, metric = 'value'] = f.key.split(':')
      return { name: f.name, label: `GPU ${index} ${pretty(metric)}` }
    })
    if (gpus.length > 0) {
      charts.push(...byUnit(hw, gpus, (unit) => ({ id: `gpu:${unit}`, section: 'GPU', title: unit === 'percent' ? 'GPU load' : 'GPU memory used' })))
    } else {
      charts.push(finish(hw, { id: 'gpu', section: 'GPU', title: 'GPU load', unit: 'percent', y: [0, 100], lines: [line(hw, 'gpu_load', 'GPU')] }))
    }
  }
  if (net) {
    charts.push(
      finish(net, {
        id: 'throughput',
        section: 'Network',
        title: 'Network throughput',
        unit: 'mbps',
        zero: true,
        lines: [line(net, 'download_mbps', 'down'), line(net, 'upload_mbps', 'up')],
      }),
    )
    charts.push(
      finish(net, {
        id: 'latency',
        section: 'Network',
        title: 'Latency and DNS time',
        unit: 'ms',
        zero: true,
        lines: [line(net, 'latency_avg_ms', 'latency', true), line(net, 'dns_resolve_ms', 'DNS')],
      }),
    )
    charts.push(
      finish(net, { id: 'loss', section: 'Network', title: 'Packet loss', unit: 'percent', zero: true, lines: [line(net, 'packet_loss_percent', 'loss')] }),
    )
    const nics = family(net, 'interfaces').map((f) => {
      const cut = f.key.lastIndexOf(':')
      return line(net, f.name, `${f.key.slice(0, cut)} ${f.key.slice(cut + 1) === 'download_mbps' ? 'down' : 'up'}`)
    })
    charts.push(finish(net, { id: 'interfaces', section: 'Network', title: 'Throughput per interface', unit: 'mbps', zero: true, lines: nics }))
    const wifi = family(net, 'wifi').filter((f) => unitOf(f.name) === 'dbm')
    charts.push(finish(net, { id: 'wifi', section: 'Network', title: 'Wi-Fi signal', unit: 'dbm', lines: wifi.map((f) => line(net, f.name, 'signal')) }))
  }
  return charts.filter((c): c is ChartSpec => c !== null)
}

/**
 * A live sample's values as series names: hot fields as they are, and the nested shapes the
 * collector sends (per-core array, partitions, temperature/fan maps, Wi-Fi) flattened the way the
 * series endpoint names them, so a point can join any chart that draws them.
 */
export function flattenSample(values: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {}
  const put = (name: string, v: unknown) => {
    if (typeof v === 'number' && Number.isFinite(v)) out[name] = v
  }
  for (const [k, v] of Object.entries(values)) {
    if (typeof v === 'number') put(k, v)
    else if (k === 'cpu_per_core' && Array.isArray(v)) for (const [i, x] of v.entries()) put(`cpu_per_core:${i}`, x)
    else if (k === 'disk_partitions' && Array.isArray(v)) {
      for (const p of v)
        if (p && typeof p === 'object') put(`disk_partitions:${(p as { mountpoint?: string }).mountpoint}`, (p as { percent?: unknown }).percent)
    } else if (k === 'temperatures' && v && typeof v === 'object') {
      for (const [name, readings] of Object.entries(v))
        if (Array.isArray(readings)) put(`temperatures:${name}`, (readings[0] as { current?: unknown })?.current)
    } else if ((k === 'fans' || k === 'wifi') && v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [name, x] of Object.entries(v)) {
        const reading = Array.isArray(x) ? (x[0] as { current?: unknown })?.current : x
        put(`${k}:${name}`, reading)
      }
    }
  }
  return out
}

/**
 * A chart with a live point added at `t` (unix s) and points before `start` dropped. Lines the
 * sample does not carry get null there. A gap longer than ~2.5 steps gets a null first, so the line
 * breaks across an outage instead of bridging it. Returns null when the sample has nothing for it.
 *
 * On a rollup level (`bucket` seconds, the chart's step), the sample joins the bucket it falls in:
 * a new bucket starts a point, the newest bucket takes it into its average and its min/max (an
 * approximation until the page reads the bucket again from the server).
 */
export function appendPoint(chart: ChartSpec, t: number, sample: Record<string, number>, start: number, bucket = 0): ChartSpec | null {
  if (!chart.lines.some((l) => l.name in sample)) return null
  const last = chart.t.at(-1)
  const at = bucket > 0 ? Math.floor(t / bucket) * bucket : t
  if (last !== undefined && at < last) return null
  if (last !== undefined && at === last) return bucket > 0 ? mergeLast(chart, sample) : null
  const keep = firstAtOrAfter(chart.t, start)
  const cut = <T>(a: T[]) => a.slice(keep)
  const gap = last !== undefined && at - last > 2.5 * Math.max(chart.step, typicalStep(chart.t))
  const ts = cut(chart.t)
  if (gap) ts.push(last! + 1)
  ts.push(at)
  const extend = (c: Column | undefined, v: number | null) => {
    if (!c) return undefined
    const next = cut(c)
    if (gap) next.push(null)
    next.push(v)
    return next
  }
  return {
    ...chart,
    t: ts,
    merged: 1,
    lines: chart.lines.map((l) => {
      const v = sample[l.name] ?? null
      return { ...l, values: extend(l.values, v)!, min: extend(l.min, v), max: extend(l.max, v) }
    }),
  }
}

/** The newest bucket with one more sample in its average (counted from 1 when the server made it). */
function mergeLast(chart: ChartSpec, sample: Record<string, number>): ChartSpec {
  const n = chart.merged ?? 1
  const i = chart.t.length - 1
  const set = (c: Column | undefined, f: (old: number | null) => number | null) => {
    if (!c) return undefined
    const next = c.slice()
    next[i] = f(c[i] ?? null)
    return next
  }
  return {
    ...chart,
    merged: n + 1,
    lines: chart.lines.map((l) => {
      const v = sample[l.name]
      if (v === undefined) return l
      return {
        ...l,
        values: set(l.values, (old) => (old == null ? v : (old * n + v) / (n + 1)))!,
        min: set(l.min, (old) => (old == null ? v : Math.min(old, v))),
        max: set(l.max, (old) => (old == null ? v : Math.max(old, v))),
      }
    }),
  }
}

function firstAtOrAfter(t: number[], start: number): number {
  let lo = 0
  let hi = t.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (t[mid]! < start) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The median spacing of the last points (a device's own interval), 0 with fewer than two. */
export function typicalStep(t: number[]): number {
  const tail = t.slice(-9)
  const deltas = tail.slice(1).map((v, i) => v - tail[i]!)
  if (deltas.length === 0) return 0
  deltas.sort((a, b) => a - b)
  return deltas[deltas.length >> 1]!
}

/** Columns in uPlot's order: x, then each line, then its band's max and min (drawn behind it). */
export function toAligned(chart: ChartSpec): (number | null)[][] {
  const cols: (number | null)[][] = [chart.t]
  for (const l of chart.lines) cols.push(l.values)
  for (const l of chart.lines) if (l.min && l.max) cols.push(l.max, l.min)
  return cols
}

/** min / average / max / latest of a line over the window, nulls skipped (the text alternative). */
export function summarize(values: Column): { min: number | null; avg: number | null; max: number | null; last: number | null; count: number } {
  let min = Number.POSITIVE_INFINITY
  let max = Number.NEGATIVE_INFINITY
  let sum = 0
  let count = 0
  let last: number | null = null
  for (const v of values) {
    if (v == null) continue
    if (v < min) min = v
    if (v > max) max = v
    sum += v
    count++
    last = v
  }
  return count === 0 ? { min: null, avg: null, max: null, last: null, count } : { min, avg: sum / count, max, last, count }
}
