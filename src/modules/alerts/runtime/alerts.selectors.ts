import type { MetricKind } from '../../metrics/metrics.fields'

/**
 * What a threshold rule watches, as written in its `metric`:
 * - a numeric field of the sample: `cpu_percent`, `ram_percent`, `cpu_temp_c`, `packet_loss_percent`, …
 *   (a boolean counts as 1 or 0; a collector's own extra fields work too);
 * - one part of a nested family: `disk_partitions:/home` (percent used), `temperatures:coretemp`
 *   (the chip's hottest sensor), `fans:cpu_fan`, `cpu_per_core:0`, `disk_io:read_bytes_per_sec`,
 *   `wifi:signal_dbm`, `gpus:0:load_percent`, `interfaces:eth0:download_mbps` (or `:is_up`);
 * - every part of a family with `*` in place of the name: `disk_partitions:*`, `temperatures:*`,
 *   `interfaces:*:is_up`, each part being its own alert (its "series").
 */
export interface Selector {
  metric: string
  /** the observation source that carries it; null: any metric sample (a collector's own field) */
  source: string | null
  /** true when the rule expands into one series per part */
  wildcard: boolean
  /** the value of a plain or named selector, null when the sample lacks it */
  read(values: Record<string, unknown>): number | null
  /** every part of a wildcard selector as [series, value] */
  each(values: Record<string, unknown>): [string, number][]
  /** how a notice names it, when its source words it itself (containers, disks); else metricWords */
  words?(series: string): MetricWords
}

/** How a rule's `metric` is read: a selector, or why it cannot be read. */
export type SelectorCompiler = (metric: string) => Selector | { error: string }

/** The sources a selector without one of its own listens to: the collector's metric samples. */
export const METRIC_SOURCES: readonly MetricKind[] = ['hardware', 'network']

/** Filesystem images that are full by design (snaps, CDs): never a "disk full". */
const READ_ONLY_IMAGES = new Set(['squashfs', 'iso9660', 'udf', 'erofs', 'cramfs'])

const HARDWARE_FAMILIES = new Set(['disk_partitions', 'temperatures', 'fans', 'cpu_per_core', 'gpus', 'disk_io'])
const NETWORK_FAMILIES = new Set(['interfaces', 'wifi'])
const HARDWARE_TOP = new Set([
  'cpu_percent',
  'ram_percent',
  'swap_percent',
  'ram_used_gb',
  'ram_available_gb',
  'swap_used_gb',
  'cpu_temp_c',
  'gpu_load',
  'disk_used_percent',
  'cpu_freq_current',
])
const NETWORK_TOP = new Set([
  'upload_mbps',
  'download_mbps',
  'latency_avg_ms',
  'latency_min_ms',
  'latency_max_ms',
  'packet_loss_percent',
  'dns_resolve_ms',
  'jitter_ms',
  'errin',
  'errout',
  'dropin',
  'dropout',
])
/** families whose parts take a field name after the key */
const FIELDED = new Set(['gpus', 'interfaces'])
const KEYED_ONLY = new Set(['disk_partitions', 'temperatures', 'fans', 'cpu_per_core'])
const FIELD_ONLY = new Set(['disk_io', 'wifi'])

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

const numeric = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'boolean' ? (v ? 1 : 0) : null)

/** The fullest partition, as the hub derives disk_used_percent at ingest. */
function fullest(partitions: unknown): number | null {
  if (!Array.isArray(partitions)) return null
  let max: number | null = null
  for (const p of partitions) {
    const v = partitionPercent(p)
    if (v !== null && (max === null || v > max)) max = v
  }
  return max
}

function partitionPercent(p: unknown): number | null {
  if (!p || typeof p !== 'object') return null
  const part = p as Record<string, unknown>
  if (typeof part.fstype === 'string' && READ_ONLY_IMAGES.has(part.fstype)) return null
  const pct = numeric(part.percent)
  if (pct !== null) return pct
  const used = numeric(part.used_gb)
  const total = numeric(part.total_gb)
  return used !== null && total ? (used / total) * 100 : null
}

/** A sensor chip's hottest (or fastest) reading: psutil's lists of {label, current}. */
function hottest(list: unknown): number | null {
  if (!Array.isArray(list)) return numeric(list)
  let max: number | null = null
  for (const s of list) {
    const v = s && typeof s === 'object' ? numeric((s as Record<string, unknown>).current) : numeric(s)
    if (v !== null && (max === null || v > max)) max = v
  }
  return max
}

/** The parts of a family as [key, part]: arrays by their name field (or index), objects by key. */
function parts(family: string, values: Record<string, unknown>): [string, unknown][] {
  const v = values[family]
  if (Array.isArray(v)) {
    const nameKey = family === 'disk_partitions' ? 'mountpoint' : family === 'interfaces' ? 'name' : null
    return v.map((p, i) => {
      const name = nameKey && p && typeof p === 'object' ? (p as Record<string, unknown>)[nameKey] : undefined
      return [typeof name === 'string' ? name : String(i), p]
    })
  }
  if (v && typeof v === 'object') return Object.entries(v)
  return []
}

/** One named part, found without building the list of parts (this runs for every sample). */
function findPart(family: string, values: Record<string, unknown>, key: string): unknown {
  const v = values[family]
  if (Array.isArray(v)) {
    const nameKey = family === 'disk_partitions' ? 'mountpoint' : family === 'interfaces' ? 'name' : null
    for (let i = 0; i < v.length; i++) {
      const p = v[i]
      const name = nameKey && p && typeof p === 'object' ? (p as Record<string, unknown>)[nameKey] : undefined
      if ((typeof name === 'string' ? name : String(i)) === key) return p
    }
    return undefined
  }
  return v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined
}

function partValue(family: string, part: unknown, field: string | null): number | null {
  if (part === undefined) return null
  if (family === 'disk_partitions') return partitionPercent(part)
  if (family === 'temperatures' || family === 'fans') return hottest(part)
  if (field === null) return numeric(part)
  return part && typeof part === 'object' ? numeric((part as Record<string, unknown>)[field]) : null
}

/** A rule's metric compiled once, when rules are loaded; null with the reason when it cannot be read. */
export function compileSelector(metric: string): Selector | { error: string } {
  const [family = '', ...rest] = metric.split(':')
  if (!NAME.test(family)) return { error: 'a metric starts with a field or family name (letters, digits, _)' }
  if (rest.length === 0) {
    if (family === 'disk_used_percent') {
      return plain(metric, 'hardware', (v) => numeric(v.disk_used_percent) ?? fullest(v.disk_partitions))
    }
    const kind =
      HARDWARE_TOP.has(family) || HARDWARE_FAMILIES.has(family) ? 'hardware' : NETWORK_TOP.has(family) || NETWORK_FAMILIES.has(family) ? 'network' : null
    if (HARDWARE_FAMILIES.has(family) || NETWORK_FAMILIES.has(family)) return { error: `${family} has parts: name one (${family}:<name>) or all (${family}:*)` }
    return plain(metric, kind, (v) => numeric(v[family]))
  }
  const kind: MetricKind | null = HARDWARE_FAMILIES.has(family) ? 'hardware' : NETWORK_FAMILIES.has(family) ? 'network' : null
  if (!kind) return { error: `${family} is not a family with parts (disk_partitions, temperatures, fans, cpu_per_core, gpus, disk_io, interfaces, wifi)` }
  if (FIELD_ONLY.has(family)) {
    const field = rest.join(':')
    if (!NAME.test(field)) return { error: `${family} takes a field name: ${family}:<field>` }
    return plain(metric, kind, (v) => {
      const obj = v[family]
      return obj && typeof obj === 'object' ? numeric((obj as Record<string, unknown>)[field]) : null
    })
  }
  let key: string
  let field: string | null = null
  if (FIELDED.has(family)) {
    // the field is the last part: an interface or GPU name holds no colon in practice
    if (rest.length < 2) return { error: `${family} takes a name and a field: ${family}:<name|*>:<field>` }
    field = rest.at(-1)!
    key = rest.slice(0, -1).join(':')
    if (!NAME.test(field)) return { error: `${field} is not a field name` }
  } else {
    key = rest.join(':') // a mount point may hold colons
  }
  if (key === '') return { error: `name the part of ${family}, or * for each` }
  if (!KEYED_ONLY.has(family) && !FIELDED.has(family)) return { error: `${family} is not supported` }
  if (key === '*') {
    return {
      metric,
      source: kind,
      wildcard: true,
      read: () => null,
      each(values) {
        const out: [string, number][] = []
        for (const [k, part] of parts(family, values)) {
          const n = partValue(family, part, field)
          if (n !== null) out.push([k, n])
        }
        return out
      },
    }
  }
  return plain(metric, kind, (values) => partValue(family, findPart(family, values, key), field))
}

function plain(metric: string, source: MetricKind | null, read: (v: Record<string, unknown>) => number | null): Selector {
  return { metric, source, wildcard: false, read, each: () => [] }
}

/** A metric as a person reads it: its label and the unit its values are given in (with its leading space). */
export interface MetricWords {
  label: string
  unit: string
  /** a yes/no or event field's own sentence for a value ("container api is unhealthy"), where "above 0" would read oddly */
  firing?(value: number | null): string
  /** its recovery sentence, for the recovered value */
  recovered?(value: number): string
  /**
   * a whole sentence naming the subject itself, when the source words its notices so (checks:
   * "shop is down (HTTP 503)", "shop is up again"); `facts` are the values observed at the firing
   */
  sentence?(kind: 'firing' | 'resolved', subject: string, value: number | null, facts: Record<string, unknown>): string
}

const PCT = ' %'
const TOP_WORDS: Record<string, [string, string]> = {
  cpu_percent: ['CPU used', PCT],
  ram_percent: ['Memory used', PCT],
  swap_percent: ['Swap used', PCT],
  ram_used_gb: ['Memory used', ' GB'],
  ram_available_gb: ['Memory available', ' GB'],
  swap_used_gb: ['Swap used', ' GB'],
  cpu_temp_c: ['CPU temperature', ' °C'],
  cpu_freq_current: ['CPU frequency', ' MHz'],
  gpu_load: ['GPU load', PCT],
  disk_used_percent: ['Fullest disk used', PCT],
  upload_mbps: ['Upload', ' Mbit/s'],
  download_mbps: ['Download', ' Mbit/s'],
  latency_avg_ms: ['Latency', ' ms'],
  latency_min_ms: ['Lowest latency', ' ms'],
  latency_max_ms: ['Highest latency', ' ms'],
  packet_loss_percent: ['Packet loss', PCT],
  dns_resolve_ms: ['DNS resolve time', ' ms'],
  jitter_ms: ['Jitter', ' ms'],
  errin: ['Receive errors', ''],
  errout: ['Send errors', ''],
  dropin: ['Received packets dropped', ''],
  dropout: ['Sent packets dropped', ''],
}
const FIELD_UNITS: Record<string, string> = { download_mbps: ' Mbit/s', upload_mbps: ' Mbit/s', load_percent: PCT, signal_dbm: ' dBm', temperature_c: ' °C' }
const fieldWords = (field: string) => field.replace(/_(percent|mbps|dbm|c)$/, '').replace(/_/g, ' ')

/** "CPU used" (%), "Disk /home used" (%), "Temperature coretemp" (°C), "Interface eth0 download" (Mbit/s); a field of its own as it is named. */
export function metricWords(metric: string, series: string): MetricWords {
  const [family = '', ...rest] = metric.split(':')
  const top = TOP_WORDS[family]
  if (rest.length === 0) return top ? { label: top[0], unit: top[1] } : { label: series ? `${metric} ${series}` : metric, unit: '' }
  const field = FIELDED.has(family) || FIELD_ONLY.has(family) ? rest.at(-1)! : null
  const named = FIELDED.has(family) ? rest.slice(0, -1).join(':') : rest.join(':')
  const key = series || named
  switch (family) {
    case 'disk_partitions':
      return { label: `Disk ${key} used`, unit: PCT }
    case 'temperatures':
      return { label: `Temperature ${key}`, unit: ' °C' }
    case 'fans':
      return { label: `Fan ${key}`, unit: ' rpm' }
    case 'cpu_per_core':
      return { label: `CPU core ${key} used`, unit: PCT }
    case 'gpus':
      return { label: `GPU ${key} ${fieldWords(field!)}`, unit: FIELD_UNITS[field!] ?? '' }
    case 'interfaces':
      return { label: field === 'is_up' ? `Interface ${key} up (1) or down (0)` : `Interface ${key} ${fieldWords(field!)}`, unit: FIELD_UNITS[field!] ?? '' }
    case 'disk_io':
      return { label: `Disk I/O ${fieldWords(field!)}`, unit: '' }
    case 'wifi':
      return { label: `Wi-Fi ${fieldWords(field!)}`, unit: FIELD_UNITS[field!] ?? '' }
    default:
      return { label: series ? `${metric} ${series}` : metric, unit: '' }
  }
}
