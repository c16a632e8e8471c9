/** The dashboard's model: the fleet overview, its order, its search, and live patches. Pure. */

import type { DeviceStatus } from '../../../src/modules/devices/devices.model'
import type { FleetDevice, FleetOverview } from '../../../src/modules/overview/overview.model'

// GET /v1/clients/me/fleet, as the server's model declares it (type-only: nothing of it is bundled)
export type { DeviceStatus, FleetDevice }
export type Fleet = FleetOverview

export const displayName = (d: { name: string | null; hostname: string | null; id: string }) => d.name || d.hostname || d.id

/** Resource use at or above this is worth a look even when the device reports fine. */
export const PRESSURE = 90
/** Packet loss (%) at or above this is worth a look. */
export const LOSS = 5

/** The highest of CPU, memory and fullest disk (%), null when none is known. */
export function pressure(d: FleetDevice): number | null {
  const known = [d.cpu_percent, d.ram_percent, d.disk_used_percent].filter((v): v is number => v != null)
  return known.length ? Math.max(...known) : null
}

/**
 * How much a device needs attention, lower first: firing alerts, then gone quiet (offline, then
 * stale), then strained while online, then never seen (set up but not reporting), then fine.
 */
export function attentionRank(d: FleetDevice): number {
  if (d.alerts_firing > 0) return 0
  if (d.status === 'offline') return 1
  if (d.status === 'stale') return 2
  if (d.status === 'online' && ((pressure(d) ?? 0) >= PRESSURE || (d.packet_loss_percent ?? 0) >= LOSS)) return 3
  if (d.status === 'never') return 4
  return 5
}

export const SORTS = ['attention', 'name', 'cpu', 'memory', 'disk', 'last_seen'] as const
export type SortKey = (typeof SORTS)[number]
export const SORT_LABELS: Record<SortKey, string> = {
  attention: 'Needs attention',
  name: 'Name',
  cpu: 'CPU',
  memory: 'Memory',
  disk: 'Disk',
  last_seen: 'Last seen',
}

export function parseSort(v: string | null | undefined): SortKey {
  return (SORTS as readonly string[]).includes(v ?? '') ? (v as SortKey) : 'attention'
}

const byName = (a: FleetDevice, b: FleetDevice) => displayName(a).localeCompare(displayName(b), undefined, { numeric: true, sensitivity: 'base' })
/** Highest first; unknown values last. */
const desc = (f: (d: FleetDevice) => number | null) => (a: FleetDevice, b: FleetDevice) => {
  const x = f(a)
  const y = f(b)
  if (x == null || y == null) return x == null ? (y == null ? 0 : 1) : -1
  return y - x
}
const seen = (d: FleetDevice) => (d.last_seen_at ? Date.parse(d.last_seen_at) : null)

const COMPARE: Record<SortKey, (a: FleetDevice, b: FleetDevice) => number> = {
  attention: (a, b) => attentionRank(a) - attentionRank(b) || b.alerts_firing - a.alerts_firing || desc(pressure)(a, b) || byName(a, b),
  name: byName,
  cpu: desc((d) => d.cpu_percent),
  memory: desc((d) => d.ram_percent),
  disk: desc((d) => d.disk_used_percent),
  last_seen: desc(seen),
}

/** A sorted copy; ties fall back to the name so the order is stable between refreshes. */
export function sortDevices(devices: FleetDevice[], key: SortKey): FleetDevice[] {
  const cmp = COMPARE[key]
  return [...devices].sort((a, b) => cmp(a, b) || byName(a, b))
}

/** Every word of the query must appear in the name, hostname, OS, arch or a tag (case-insensitive). */
export function matches(d: FleetDevice, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return true
  const hay = [d.name, d.hostname, d.os, d.os_version, d.arch, d.status, ...d.tags].filter(Boolean).join(' ').toLowerCase()
  return words.every((w) => hay.includes(w))
}

/** A live `sample` event's hot values merged into the device's card. */
export function applySample(d: FleetDevice, kind: string, recordedAt: string, values: Record<string, unknown>): FleetDevice {
  const num = (k: keyof FleetDevice) => {
    const v = values[k]
    return typeof v === 'number' && Number.isFinite(v) ? v : (d[k] as number | null)
  }
  const next: FleetDevice = { ...d, last_seen_at: laterOf(d.last_seen_at, recordedAt), status: d.status === 'never' ? 'online' : d.status }
  if (kind === 'hardware') {
    next.cpu_percent = num('cpu_percent')
    next.ram_percent = num('ram_percent')
    next.disk_used_percent = num('disk_used_percent')
    next.cpu_temp_c = num('cpu_temp_c')
    if (typeof values.cpu_percent === 'number') next.cpu_spark = pushSpark(d.cpu_spark, d.last_seen_at, recordedAt, values.cpu_percent)
  } else if (kind === 'network') {
    next.download_mbps = num('download_mbps')
    next.upload_mbps = num('upload_mbps')
    next.latency_avg_ms = num('latency_avg_ms')
    next.packet_loss_percent = num('packet_loss_percent')
  }
  return next
}

function laterOf(a: string | null, b: string): string {
  return a && Date.parse(a) > Date.parse(b) ? a : b
}

/**
 * The sparkline holds one value per minute: a sample in the minute of the last one replaces it,
 * a sample in a later minute shifts the line left by the minutes that passed (nulls for silence).
 */
export function pushSpark(spark: (number | null)[], lastSeen: string | null, recordedAt: string, v: number): (number | null)[] {
  const minute = (iso: string) => Math.floor(Date.parse(iso) / 60_000)
  const size = spark.length || 60
  const passed = lastSeen ? minute(recordedAt) - minute(lastSeen) : size
  if (Number.isNaN(passed) || passed < 0) return spark
  if (passed === 0 && spark.length) return [...spark.slice(0, -1), v]
  const shift = Math.min(passed, size)
  const padded = [...(spark.length ? spark : new Array(size).fill(null)), ...new Array(shift - 1).fill(null), v]
  return padded.slice(-size)
}
