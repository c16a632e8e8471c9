import { toIso, type Clock } from '../../lib/clock'
import type { FleetDevice, FleetOverview } from './overview.model'
import { statusOf } from './overview.status'

/** A device as the overview lists it (the devices domain's row, with the seq its metrics are keyed on). */
export interface OverviewDevice {
  id: string
  seq: number | null
  name: string | null
  hostname: string | null
  os: string | null
  os_version: string | null
  arch: string | null
  tags: string[]
  /** server time of its last accepted sample, null if never */
  lastSeenAt: number | null
}

/** What the metrics say about one device (see metrics.fleet.ts). */
export interface OverviewFigures {
  latest: Record<
    'cpu_percent' | 'ram_percent' | 'disk_used_percent' | 'cpu_temp_c' | 'download_mbps' | 'upload_mbps' | 'latency_avg_ms' | 'packet_loss_percent',
    number | null
  >
  lastSampleAt: number | null
  intervalMs: number | null
  spark: (number | null)[]
}

export interface OverviewDeps {
  clock: Clock
  devices: { list(clientId: string): OverviewDevice[] }
  metrics: { figures(seqs: number[], now: number): Map<number, OverviewFigures> }
  /** alerts firing per device id; absent until the alerts module is wired (0 for every device) */
  alertsFiring: (clientId: string) => Map<string, number> | Promise<Map<string, number>>
  /** service checks down now; absent until the checks module is wired (0) */
  checksDown?: (clientId: string) => number
}

const NO_SPARK: (number | null)[] = new Array(60).fill(null)

/** Every device of the account with its status, newest figures and last hour of CPU. */
export async function fleetOverview(deps: OverviewDeps, clientId: string): Promise<FleetOverview> {
  const now = deps.clock.now()
  const devices = deps.devices.list(clientId)
  const seqs = devices.flatMap((d) => (d.seq === null ? [] : [d.seq]))
  const figures = deps.metrics.figures(seqs, now)
  const firing = await deps.alertsFiring(clientId)
  return {
    generated_at: toIso(now),
    checks_down: deps.checksDown?.(clientId) ?? 0,
    devices: devices.map((d): FleetDevice => {
      const f = d.seq === null ? undefined : figures.get(d.seq)
      // a device whose samples came another way than ingest (an import) is seen by its newest sample
      const lastSeen = d.lastSeenAt ?? f?.lastSampleAt ?? null
      const interval = f?.intervalMs ?? null
      return {
        id: d.id,
        name: d.name,
        hostname: d.hostname,
        os: d.os,
        os_version: d.os_version,
        arch: d.arch,
        tags: d.tags,
        status: statusOf(lastSeen, interval, now),
        interval_seconds: interval === null ? null : interval / 1000,
        last_seen_at: lastSeen === null ? null : toIso(lastSeen),
        cpu_percent: f?.latest.cpu_percent ?? null,
        ram_percent: f?.latest.ram_percent ?? null,
        disk_used_percent: f?.latest.disk_used_percent ?? null,
        cpu_temp_c: f?.latest.cpu_temp_c ?? null,
        download_mbps: f?.latest.download_mbps ?? null,
        upload_mbps: f?.latest.upload_mbps ?? null,
        latency_avg_ms: f?.latest.latency_avg_ms ?? null,
        packet_loss_percent: f?.latest.packet_loss_percent ?? null,
        cpu_spark: f?.spark ?? NO_SPARK,
        alerts_firing: firing?.get(d.id) ?? 0,
      }
    }),
  }
}
