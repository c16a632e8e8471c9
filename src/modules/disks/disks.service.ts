import { toIso, type Clock } from '../../lib/clock'
import type { Disk, DisksSmartBlock } from './disks.model'
import type { DisksStore, ReadingRow } from './disks.store'

const DAY_MS = 86_400_000
/** how far back "reallocated sectors rising" looks */
export const GROWTH_WINDOW_MS = 7 * DAY_MS

export interface DiskDevices {
  /** a device of this client (its id and display name); 404 otherwise */
  ref(clientId: string, deviceId: string): { id: string }
}

export interface DisksDeps {
  store: DisksStore
  clock: Clock
  devices: DiskDevices
  /** told of each report newer than the device's last, after its commit (alert rules) */
  applied?: (a: DisksApplied) => void
  /** the device reported (the devices' last-seen), once its report is stored: a batch of S.M.A.R.T. only is a sign of life too */
  seen?: (deviceSeq: number) => void
}

export interface DisksReceived {
  clientId: string
  deviceId: string
  /** the device's integer key, for its last-seen */
  deviceSeq: number
  ts: number
  block: DisksSmartBlock
}

export interface DisksApplied {
  clientId: string
  deviceId: string
  ts: number
  disks: Disk[]
}

export const isFailing = (r: Pick<ReadingRow, 'passed' | 'pending_sectors' | 'uncorrectable_sectors'>) =>
  r.passed === 0 || (r.pending_sectors ?? 0) > 0 || (r.uncorrectable_sectors ?? 0) > 0

function toDisk(r: ReadingRow, oldest: Map<string, number | null>): Disk {
  const first = oldest.get(r.name)
  return {
    name: r.name,
    model: r.model,
    serial: r.serial,
    kind: r.kind as Disk['kind'],
    capacity_bytes: r.capacity_bytes,
    passed: r.passed === null ? null : r.passed === 1,
    temperature_c: r.temperature_c,
    power_on_hours: r.power_on_hours,
    reallocated_sectors: r.reallocated_sectors,
    pending_sectors: r.pending_sectors,
    uncorrectable_sectors: r.uncorrectable_sectors,
    nvme_percentage_used: r.nvme_percentage_used,
    nvme_media_errors: r.nvme_media_errors,
    failing: isFailing(r),
    reallocated_growth_7d: r.reallocated_sectors !== null && first !== undefined && first !== null ? Math.max(0, r.reallocated_sectors - first) : null,
    collected_at: toIso(r.ts),
  }
}

/**
 * Stores one S.M.A.R.T. report: its readings always (a replay completes the history), the
 * device's report only when it is newer than the one held, in one store call. Reports come at
 * most every 30 minutes per device.
 */
export async function ingestDisks(deps: DisksDeps, r: DisksReceived): Promise<void> {
  const b = r.block
  const applied = await deps.store.apply({
    report: { device_id: r.deviceId, client_id: r.clientId, available: b.available ? 1 : 0, unavailable_reason: b.unavailable_reason, ts: r.ts },
    readings: b.devices.map((d) => ({
      device_id: r.deviceId,
      client_id: r.clientId,
      name: d.name,
      ts: r.ts,
      model: d.model,
      serial: d.serial,
      kind: d.kind,
      capacity_bytes: d.capacity_bytes,
      passed: d.passed === null ? null : d.passed ? 1 : 0,
      temperature_c: d.temperature_c,
      power_on_hours: d.power_on_hours,
      reallocated_sectors: d.reallocated_sectors,
      pending_sectors: d.pending_sectors,
      uncorrectable_sectors: d.uncorrectable_sectors,
      nvme_percentage_used: d.nvme_percentage_used,
      nvme_media_errors: d.nvme_media_errors,
    })),
  })
  deps.seen?.(r.deviceSeq)
  if (applied && deps.applied) deps.applied({ clientId: r.clientId, deviceId: r.deviceId, ts: r.ts, disks: await readings(deps, r.clientId, r.deviceId, r.ts) })
}

const readings = async (deps: Pick<DisksDeps, 'store'>, clientId: string, deviceId: string, ts: number) => {
  const [oldest, rows] = await Promise.all([deps.store.oldestSince(clientId, deviceId, ts - GROWTH_WINDOW_MS), deps.store.readingsAt(clientId, deviceId, ts)])
  return rows.map((r) => toDisk(r, oldest))
}

/** A device's disks as of its newest report, with when they were read and why there are none. */
export async function deviceDisks(deps: DisksDeps, clientId: string, deviceId: string) {
  const device = deps.devices.ref(clientId, deviceId)
  const report = await deps.store.report(clientId, device.id)
  if (!report) return { device_id: device.id, available: null, unavailable_reason: null, collected_at: null, items: [] }
  return {
    device_id: device.id,
    available: report.available === 1,
    unavailable_reason: report.unavailable_reason,
    collected_at: toIso(report.ts),
    items: await readings(deps, clientId, device.id, report.ts),
  }
}

/** The account's failing disks (newest report of each device): the dashboard's "disk failing" hint. */
export async function disksAttention(deps: Pick<DisksDeps, 'store'>, clientId: string) {
  const rows = await deps.store.failing(clientId)
  return {
    disks_failing: rows.length,
    items: rows.slice(0, 100).map((r) => ({ device_id: r.device_id, device_name: r.device_name, name: r.name, model: r.model, collected_at: toIso(r.ts) })),
  }
}

/** Readings older than the raw retention, each device's newest report kept. */
export const pruneDisks = (deps: Pick<DisksDeps, 'store' | 'clock'>, retentionS: number) => deps.store.prune(deps.clock.now() - retentionS * 1000)
