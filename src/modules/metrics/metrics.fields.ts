/**
 * The two metric kinds and their hot numeric fields. Hot fields are real columns (raw and
 * every rollup tier); everything else a collector sends (strings, nested objects, arrays) is
 * kept as sent in one compact JSON column. This list is the single source for the tables,
 * the ingest row builder, the rollup SQL and the summary.
 */
export type MetricKind = 'hardware' | 'network'

export interface NumericField {
  name: string
  integer: boolean
}

const num = (name: string): NumericField => ({ name, integer: false })
const int = (name: string): NumericField => ({ name, integer: true })

export const HARDWARE_FIELDS: NumericField[] = [
  num('cpu_percent'),
  int('cpu_count_logical'),
  int('cpu_count_physical'),
  num('cpu_freq_current'),
  num('cpu_freq_max'),
  num('ram_total_gb'),
  num('ram_used_gb'),
  num('ram_available_gb'),
  num('ram_percent'),
  num('swap_total_gb'),
  num('swap_used_gb'),
  num('swap_percent'),
  num('cpu_temp_c'),
  num('gpu_load'),
  // derived at ingest from disk_partitions: the fullest partition, for disk-fill trends
  num('disk_used_percent'),
]

export const NETWORK_FIELDS: NumericField[] = [
  num('upload_mbps'),
  num('download_mbps'),
  int('bytes_sent_total'),
  int('bytes_recv_total'),
  int('packets_sent'),
  int('packets_recv'),
  int('errin'),
  int('errout'),
  int('dropin'),
  int('dropout'),
  num('latency_avg_ms'),
  num('latency_min_ms'),
  num('latency_max_ms'),
  num('packet_loss_percent'),
  num('dns_resolve_ms'),
]

/** Monotonic counters whose growth over a window the summary reports (resets handled). */
export const COUNTER_FIELDS: Record<MetricKind, string[]> = {
  hardware: [],
  network: ['bytes_sent_total', 'bytes_recv_total'],
}

/** A counter's growth from one reading to the next; a drop means it restarted from zero. */
export const counterStep = (prev: number, next: number) => (next >= prev ? next - prev : next)

export const FIELDS: Record<MetricKind, NumericField[]> = { hardware: HARDWARE_FIELDS, network: NETWORK_FIELDS }

export type TierName = '1m' | '10m' | '1h' | '1d'

export interface Tier {
  name: TierName
  ms: number
}

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/** Rollup tiers, finest first; each is computed from the one before it (the first from raw). */
export const TIERS: Tier[] = [
  { name: '1m', ms: MINUTE_MS },
  { name: '10m', ms: 10 * MINUTE_MS },
  { name: '1h', ms: HOUR_MS },
  { name: '1d', ms: DAY_MS },
]

/**
 * A level is where samples are read from: raw, or a tier. Levels are numbered because each
 * is rolled up from the one before it and reads fall back to the finer one: level 0 is raw,
 * level i > 0 is TIERS[i - 1].
 */
export type LevelName = 'raw' | TierName
export const LEVEL: Record<LevelName, number> = { raw: 0, '1m': 1, '10m': 2, '1h': 3, '1d': 4 }
export const levelName = (level: number): LevelName => (level === LEVEL.raw ? 'raw' : TIERS[level - 1]!.name)

/**
 * Raw samples of both kinds share one table: a batch is one row with one index entry (two
 * tables meant two hot index pages per device rewritten by every commit). `kinds` says which
 * parts a row carries.
 */
export const RAW_TABLE = 'metric_samples'
export const KIND_BIT: Record<MetricKind, number> = { hardware: 1, network: 2 }
/** the SQL condition selecting the rows that carry a kind */
export const hasKind = (kind: MetricKind) => `(kinds & ${KIND_BIT[kind]}) != 0`
/** the JSON column holding a kind's non-hot fields */
export const restColumn = (kind: MetricKind) => (kind === 'hardware' ? 'hw_rest' : 'net_rest')
export const tierTable = (kind: MetricKind, tier: TierName) => `${kind === 'hardware' ? 'metric_hw' : 'metric_net'}_${tier}`
/**
 * SQLite's 1-minute tier: one coded row per device, kind and ten minutes (metrics.packed.ts). The
 * rows of `tierTable(kind, '1m')`, which earlier releases wrote, are read beside them until they age out.
 */
export const packedTable = (kind: MetricKind) => `${tierTable(kind, '1m')}_packed`

/** The value columns of a tier row after (device_seq, bucket, n), in the order rollups write and reads take them. */
export function tierColumns(kind: MetricKind): string[] {
  return [
    ...FIELDS[kind].flatMap((f) => [`${f.name}_avg`, `${f.name}_min`, `${f.name}_max`, `${f.name}_n`]),
    ...COUNTER_FIELDS[kind].flatMap((c) => [`${c}_delta`, `${c}_first`, `${c}_last`]),
  ]
}

/** The tables of the newest samples' compact records, used in turn (see metrics.hot.store.ts). */
export const HOT_TABLES = 4
export const hotTable = (i: number) => `metric_hot_${i}`
