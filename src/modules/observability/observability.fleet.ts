import { FIELDS, type MetricKind } from '../metrics/metrics.fields'
import type { Exposition, MetricType } from './observability.exposition'

/**
 * How a stored hot field is exposed: its Prometheus name, in base units (bytes, seconds, hertz,
 * ratios 0..1), named after node_exporter's counterpart where there is one (given in `like`) so
 * queries read alike. Fields derivable from others (ram_percent = used / total) and the
 * collector's own rates (rate() over the byte counters gives them) are left out.
 */
export interface FleetMetric {
  field: string
  name: string
  type: MetricType
  scale: number
  help: string
}

const GIB = 1024 ** 3 // the collector's "_gb" fields are psutil's GiB

const m = (field: string, name: string, type: MetricType, scale: number, help: string): FleetMetric => ({
  field,
  name: `vigil_device_${name}`,
  type,
  scale,
  help,
})

export const FLEET_METRICS: Record<MetricKind, FleetMetric[]> = {
  hardware: [
    m('cpu_percent', 'cpu_usage_ratio', 'gauge', 0.01, 'Share of CPU time busy over all cores, 0 to 1'),
    m('cpu_count_logical', 'cpus', 'gauge', 1, 'Logical CPUs'),
    m('cpu_count_physical', 'cpu_cores', 'gauge', 1, 'Physical CPU cores'),
    m('cpu_freq_current', 'cpu_frequency_hertz', 'gauge', 1e6, 'Mean current CPU frequency'),
    m('cpu_freq_max', 'cpu_frequency_max_hertz', 'gauge', 1e6, 'Mean maximum CPU frequency'),
    m('cpu_temp_c', 'cpu_temperature_celsius', 'gauge', 1, 'CPU temperature'),
    m('ram_total_gb', 'memory_total_bytes', 'gauge', GIB, 'Physical memory (like node_memory_MemTotal_bytes)'),
    m('ram_available_gb', 'memory_available_bytes', 'gauge', GIB, 'Memory available without swapping (like node_memory_MemAvailable_bytes)'),
    m('ram_used_gb', 'memory_used_bytes', 'gauge', GIB, 'Memory in use'),
    m('swap_total_gb', 'swap_total_bytes', 'gauge', GIB, 'Swap space (like node_memory_SwapTotal_bytes)'),
    m('swap_used_gb', 'swap_used_bytes', 'gauge', GIB, 'Swap space in use'),
    m('gpu_load', 'gpu_usage_ratio', 'gauge', 0.01, 'GPU busy share, 0 to 1'),
    m('disk_used_percent', 'filesystem_fullest_used_ratio', 'gauge', 0.01, 'Used share of the fullest filesystem, 0 to 1'),
  ],
  network: [
    m('bytes_sent_total', 'network_transmit_bytes_total', 'counter', 1, 'Bytes sent over all interfaces since boot (like node_network_transmit_bytes_total)'),
    m('bytes_recv_total', 'network_receive_bytes_total', 'counter', 1, 'Bytes received over all interfaces since boot (like node_network_receive_bytes_total)'),
    m('packets_sent', 'network_transmit_packets_total', 'counter', 1, 'Packets sent since boot (like node_network_transmit_packets_total)'),
    m('packets_recv', 'network_receive_packets_total', 'counter', 1, 'Packets received since boot (like node_network_receive_packets_total)'),
    m('errout', 'network_transmit_errs_total', 'counter', 1, 'Transmit errors since boot (like node_network_transmit_errs_total)'),
    m('errin', 'network_receive_errs_total', 'counter', 1, 'Receive errors since boot (like node_network_receive_errs_total)'),
    m('dropout', 'network_transmit_drop_total', 'counter', 1, 'Outgoing packets dropped since boot (like node_network_transmit_drop_total)'),
    m('dropin', 'network_receive_drop_total', 'counter', 1, 'Incoming packets dropped since boot (like node_network_receive_drop_total)'),
    m('latency_avg_ms', 'latency_average_seconds', 'gauge', 1e-3, 'Mean TCP-connect latency to the probe targets'),
    m('latency_min_ms', 'latency_min_seconds', 'gauge', 1e-3, 'Fastest TCP-connect latency to the probe targets'),
    m('latency_max_ms', 'latency_max_seconds', 'gauge', 1e-3, 'Slowest TCP-connect latency to the probe targets'),
    m('packet_loss_percent', 'packet_loss_ratio', 'gauge', 0.01, 'Share of probes lost, 0 to 1'),
    m('dns_resolve_ms', 'dns_lookup_seconds', 'gauge', 1e-3, 'DNS resolution time (like probe_dns_lookup_time_seconds)'),
  ],
}

/** A device's values older than this are left out: a silent machine must not look alive. */
export const FRESH_MS = 15 * 60_000

/** Divides for the sub-unit scales: 12.3 / 100 is 0.123 where 12.3 * 0.01 is 0.12300000000000001. */
const scaled = (v: number, scale: number) => (scale < 1 ? v / Math.round(1 / scale) : v * scale)

/** The newest samples of a kind as the metrics store returns them: [seq, ts, ...hot values]. */
export type LatestRows = (number | null)[][]

/**
 * Writes the fleet families: per device its last sample time and whether it reports, then each
 * field of its newest sample of each kind. `labels` maps a device seq to its formatted labels.
 */
export function writeFleet(out: Exposition, labels: Map<number, string>, latest: Record<MetricKind, LatestRows>, now: number) {
  const newest = new Map<number, number>()
  for (const kind of ['hardware', 'network'] as const) {
    for (const row of latest[kind]) newest.set(row[0]!, Math.max(newest.get(row[0]!) ?? 0, row[1]!))
  }
  out.family('vigil_device_last_sample_timestamp_seconds', 'gauge', 'When the device last sent a sample (Unix time)')
  for (const [seq, ts] of newest) {
    const l = labels.get(seq)
    if (l) out.sample('vigil_device_last_sample_timestamp_seconds', l, ts / 1000)
  }
  out.family('vigil_device_reporting', 'gauge', `1 if the device sent a sample in the last ${FRESH_MS / 60_000} minutes, else 0`)
  for (const [seq, l] of labels) out.sample('vigil_device_reporting', l, now - (newest.get(seq) ?? -Infinity) <= FRESH_MS ? 1 : 0)

  for (const kind of ['hardware', 'network'] as const) {
    const fresh = latest[kind].filter((row) => now - row[1]! <= FRESH_MS && labels.has(row[0]!))
    const column = new Map(FIELDS[kind].map((f, i) => [f.name, i + 2]))
    for (const metric of FLEET_METRICS[kind]) {
      const at = column.get(metric.field)!
      out.family(metric.name, metric.type, metric.help)
      for (const row of fresh) {
        const v = row[at]
        if (typeof v === 'number' && Number.isFinite(v)) out.sample(metric.name, labels.get(row[0]!)!, scaled(v, metric.scale))
      }
    }
  }
}
