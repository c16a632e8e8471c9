import type { MetricKind } from './metrics.fields'

/**
 * The nested parts of a sample a chart can draw, as the collector (src/agent/readers) sends
 * them, each expanded into `family:key` series. They are kept in the raw samples' JSON column,
 * so they exist only as long as raw samples do (VIGIL_RETENTION_RAW).
 */
export const NESTED_FAMILIES: Record<MetricKind, readonly string[]> = {
  hardware: ['cpu_per_core', 'disk_partitions', 'disk_io', 'temperatures', 'fans', 'gpus'],
  network: ['wifi', 'interfaces'],
}

/** Series one family may expand into per answer; keys beyond it (seen later) are left out. */
export const MAX_KEYS_PER_FAMILY = 64

export type Emit = (series: string, value: number) => void

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** disk_io's rates (per disk and in total), not its counters since boot: a chart of a counter is a ramp */
const DISK_RATES = ['read_bytes_per_sec', 'write_bytes_per_sec', 'read_ops_per_sec', 'write_ops_per_sec', 'busy_percent']
/** per interface: its throughput (the counters since boot are left out for the same reason) */
const NIC_RATES = ['upload_mbps', 'download_mbps']

/** temperatures and fans: {chip: [{label, current}]} → `family:chip`, or `family:chip:label` when the chip has several */
function sensors(family: string) {
  return (v: unknown, emit: Emit) => {
    if (!isObject(v)) return
    for (const chip in v) {
      const list = v[chip]
      if (!Array.isArray(list)) continue
      list.forEach((s, i) => {
        if (!isObject(s) || !finite(s.current)) return
        const label = typeof s.label === 'string' && s.label ? s.label : list.length > 1 ? String(i) : ''
        emit(label ? `${family}:${chip}:${label}` : `${family}:${chip}`, s.current)
      })
    }
  }
}

const EXTRACT: Record<string, (v: unknown, emit: Emit) => void> = {
  /** `cpu_per_core:0`: busy percent per logical core */
  cpu_per_core(v, emit) {
    if (!Array.isArray(v)) return
    for (let i = 0; i < v.length; i++) if (finite(v[i])) emit(`cpu_per_core:${i}`, v[i])
  },
  /** `disk_partitions:/home`: percent used per mount point */
  disk_partitions(v, emit) {
    if (!Array.isArray(v)) return
    v.forEach((p, i) => {
      if (!isObject(p)) return
      const key = typeof p.mountpoint === 'string' ? p.mountpoint : typeof p.device === 'string' ? p.device : String(i)
      if (finite(p.percent)) emit(`disk_partitions:${key}`, p.percent)
      else if (finite(p.used) && finite(p.total) && p.total > 0) emit(`disk_partitions:${key}`, (p.used / p.total) * 100)
    })
  },
  /** `disk_io:read_bytes_per_sec` (all disks) and `disk_io:sda:read_bytes_per_sec` */
  disk_io(v, emit) {
    if (!isObject(v)) return
    for (const k of DISK_RATES) if (finite(v[k])) emit(`disk_io:${k}`, v[k])
    if (!isObject(v.disks)) return
    for (const disk in v.disks) {
      const d = v.disks[disk]
      if (isObject(d)) for (const k of DISK_RATES) if (finite(d[k])) emit(`disk_io:${disk}:${k}`, d[k])
    }
  },
  /** `temperatures:coretemp` or `temperatures:coretemp:Core 0` in °C */
  temperatures: sensors('temperatures'),
  /** `fans:thinkpad` or `fans:nct6775:fan2` in RPM */
  fans: sensors('fans'),
  /** `gpus:0:load` (percent) and `gpus:0:memory_used_mb` */
  gpus(v, emit) {
    if (!Array.isArray(v)) return
    v.forEach((g, i) => {
      if (!isObject(g)) return
      const load = finite(g.load_percent) ? g.load_percent : g.load
      if (finite(load)) emit(`gpus:${i}:load`, load)
      if (finite(g.memory_used_mb)) emit(`gpus:${i}:memory_used_mb`, g.memory_used_mb)
    })
  },
  /** every number of the Wi-Fi link: `wifi:signal_dbm`, `wifi:quality_percent`, … */
  wifi(v, emit) {
    if (!isObject(v)) return
    for (const k in v) if (finite(v[k])) emit(`wifi:${k}`, v[k])
  },
  /** `interfaces:eth0:download_mbps` and `…:upload_mbps` */
  interfaces(v, emit) {
    if (!Array.isArray(v)) return
    v.forEach((nic, i) => {
      if (!isObject(nic)) return
      const name = typeof nic.name === 'string' ? nic.name : String(i)
      for (const k of NIC_RATES) if (finite(nic[k])) emit(`interfaces:${name}:${k}`, nic[k])
    })
  },
}

/** Calls `emit` for every series of `family` in one sample's value of it (the parsed JSON). */
export function extractFamily(family: string, value: unknown, emit: Emit): void {
  EXTRACT[family]?.(value, emit)
}
