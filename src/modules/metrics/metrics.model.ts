import { t, type Static, type TSchema } from 'elysia'
import { Type } from '@sinclair/typebox'
import { ContainersBlock } from '../containers/containers.model'
import { DisksSmartBlock } from '../disks/disks.model'
import { CheckResultsIn } from '../checks/checks.model'

/** null first: a wrong type is then reported against the real type ("Expected number"), not null */
const nullable = <T extends TSchema>(s: T) => t.Optional(t.Union([t.Null(), s]))
const num = () => nullable(t.Number())
const int = () => nullable(Type.Integer())
const str = () => nullable(t.String())
/** nested parts are free-form: kept exactly as sent */
const obj = () => nullable(t.Object({}, { additionalProperties: true }))
const objs = () => nullable(t.Array(t.Object({}, { additionalProperties: true })))

const hardwareFields = {
  cpu_percent: num(),
  cpu_per_core: nullable(t.Array(t.Number())),
  cpu_count_logical: int(),
  cpu_count_physical: int(),
  cpu_freq_current: num(),
  cpu_freq_max: num(),
  cpu_brand: str(),
  ram_total_gb: num(),
  ram_used_gb: num(),
  ram_available_gb: num(),
  ram_percent: num(),
  swap_total_gb: num(),
  swap_used_gb: num(),
  swap_percent: num(),
  gpus: objs(),
  disk_partitions: objs(),
  disk_io: obj(),
  temperatures: obj(),
  fans: obj(),
  cpu_temp_c: num(),
  gpu_name: str(),
  gpu_load: num(),
}

const networkFields = {
  upload_mbps: num(),
  download_mbps: num(),
  bytes_sent_total: int(),
  bytes_recv_total: int(),
  packets_sent: int(),
  packets_recv: int(),
  errin: int(),
  errout: int(),
  dropin: int(),
  dropout: int(),
  latency_avg_ms: num(),
  latency_min_ms: num(),
  latency_max_ms: num(),
  packet_loss_percent: num(),
  dns_resolve_ms: num(),
  wifi: obj(),
  connections: objs(),
  interfaces: objs(),
}

/** Beyond the spec's fields: which device (else resolved from key/header) and when (buffered samples). */
const envelope = {
  device_id: nullable(t.String({ maxLength: 100 })),
  recorded_at: nullable(t.String({ format: 'date-time' })),
}

/** A sample may carry fields beyond these (a collector's extensions): they are stored and returned as sent. */
const OPEN = { additionalProperties: true }

/**
 * What a sample may hold at most, far beyond any real machine (a path is at most 4096 bytes on
 * Linux, an interface name 15): the input's bounds only, so that rows stored before them are
 * still answered. The nested parts stay free-form; these are their known text fields and lists.
 */
const text = (maxLength: number) => nullable(t.String({ maxLength }))
const list = <T extends TSchema>(item: T, maxItems: number) => nullable(t.Array(item, { maxItems }))
const part = (fields: Record<string, TSchema>, maxItems: number) => list(t.Object(fields, OPEN), maxItems)
const named = (maxProperties: number) => nullable(t.Object({}, { ...OPEN, maxProperties }))
const topProcess = t.Object({ name: text(256) }, OPEN)
const hardwareBounds = {
  cpu_per_core: list(t.Number(), 4096),
  cpu_brand: text(256),
  gpu_name: text(256),
  gpus: part({ name: text(256), vendor: text(256) }, 64),
  disk_partitions: part({ device: text(4096), mountpoint: text(4096), fstype: text(64), opts: text(4096) }, 512),
  disk_io: named(1024),
  temperatures: named(256),
  fans: named(256),
  /** the collector's top processes by CPU and by memory */
  top_processes: nullable(t.Object({ cpu: list(topProcess, 100), memory: list(topProcess, 100) }, OPEN)),
}
const networkBounds = {
  wifi: nullable(t.Object({ interface: text(64), ssid: text(256) }, { ...OPEN, maxProperties: 64 })),
  connections: list(t.Object({}, OPEN), 10_000),
  interfaces: part({ name: text(64), mac: text(64) }, 1024),
}

export const HardwareMetricIn = t.Object({ ...hardwareFields, ...hardwareBounds, ...envelope }, OPEN)
export const NetworkMetricIn = t.Object({ ...networkFields, ...networkBounds, ...envelope }, OPEN)
export const BatchMetricIn = t.Object({
  hardware: nullable(t.Object({ ...hardwareFields, ...hardwareBounds, recorded_at: envelope.recorded_at }, OPEN)),
  network: nullable(t.Object({ ...networkFields, ...networkBounds, recorded_at: envelope.recorded_at }, OPEN)),
  /** what the collector saw beside the samples at the same moment: handed to their modules (see hooks.batchExtras) */
  containers: nullable(ContainersBlock),
  disks_smart: nullable(DisksSmartBlock),
  check_results: nullable(CheckResultsIn),
  ...envelope,
})

/** Replays per bulk request at most; with the 1 MiB body cap, ~250 typical agent samples fit. */
export const MAX_BULK_ITEMS = 500

/** One replayed batch. Its recorded_at is required: a replay is recognised by its time. */
const BulkItem = t.Object({
  hardware: BatchMetricIn.properties.hardware,
  network: BatchMetricIn.properties.network,
  containers: BatchMetricIn.properties.containers,
  disks_smart: BatchMetricIn.properties.disks_smart,
  check_results: BatchMetricIn.properties.check_results,
  recorded_at: t.String({ format: 'date-time' }),
})
export const BulkMetricIn = t.Object({
  device_id: text(100),
  items: t.Array(BulkItem, { minItems: 1, maxItems: MAX_BULK_ITEMS }),
})

const partRef = t.Nullable(t.Object({ id: Type.Integer() }))
export const BulkCreated = t.Object({
  device_id: t.String(),
  stored: Type.Integer({ description: 'items stored now, including items carrying only containers or disks_smart (their modules keep a repeated block once)' }),
  duplicates: Type.Integer({
    description:
      'items whose hardware and network samples the hub already held (same device and recorded_at): not stored again. An item carrying only containers or disks_smart is counted as stored',
  }),
  rejected: Type.Integer({ description: 'items refused for what they are (reason given); resending them is pointless' }),
  items: t.Array(
    t.Object({
      status: t.Union([t.Literal('stored'), t.Literal('duplicate'), t.Literal('rejected')]),
      recorded_at: t.String(),
      hardware: partRef,
      network: partRef,
      reason: t.Nullable(t.String()),
    }),
    { description: 'one per item, in the order sent' },
  ),
})

export const MetricCreated = t.Object({ id: Type.Integer(), device_id: t.String(), recorded_at: t.String({ format: 'date-time' }) })
export const BatchCreated = t.Object({
  device_id: t.String(),
  hardware: t.Nullable(t.Object({ id: Type.Integer(), recorded_at: t.String({ format: 'date-time' }) })),
  network: t.Nullable(t.Object({ id: Type.Integer(), recorded_at: t.String({ format: 'date-time' }) })),
})

const recordHead = { id: Type.Integer(), device_id: t.String(), recorded_at: t.String({ format: 'date-time' }) }
/** A stored sample as read back: the fields named here, then every other field the collector sent, as it sent them. */
const asSent = { ...OPEN, description: 'The fields named here, then every other field the collector sent (top processes, anything a collector adds), as sent' }
export const HardwareRecord = t.Object({ ...recordHead, ...hardwareFields, disk_used_percent: num() }, asSent)
export const NetworkRecord = t.Object({ ...recordHead, ...networkFields }, asSent)

const page = <T extends ReturnType<typeof t.Object>>(item: T) =>
  t.Object({ items: t.Array(item), limit: Type.Integer(), offset: Type.Integer(), total: Type.Integer() })
export const HardwarePage = page(HardwareRecord)
export const NetworkPage = page(NetworkRecord)

export const HistoryQuery = t.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 120 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  start_date: t.Optional(t.Nullable(t.String({ format: 'date-time' }))),
  end_date: t.Optional(t.Nullable(t.String({ format: 'date-time' }))),
})
export const SummaryQuery = t.Object({ hours: Type.Integer({ minimum: 1, maximum: 168, default: 24 }) })
export const DeviceParams = t.Object({ device_id: t.String({ maxLength: 100 }) })

export type HardwareMetricIn = Static<typeof HardwareMetricIn>
export type NetworkMetricIn = Static<typeof NetworkMetricIn>
export type BatchMetricIn = Static<typeof BatchMetricIn>
export type BulkMetricIn = Static<typeof BulkMetricIn>
export type BulkCreated = Static<typeof BulkCreated>
export type HardwareRecord = Static<typeof HardwareRecord>
export type NetworkRecord = Static<typeof NetworkRecord>
export type HistoryQuery = Static<typeof HistoryQuery>
