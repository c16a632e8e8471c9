import { listDir, readText, round } from '../agent.fs'

/** Cumulative counters of one disk, as psutil's disk_io_counters. */
export interface DiskCounters {
  read_count: number
  write_count: number
  read_bytes: number
  write_bytes: number
  read_time: number
  write_time: number
  busy_time: number
}

/** Sectors in /proc/diskstats are always 512 bytes, whatever the device's sector size. */
const SECTOR = 512

/**
 * /proc/diskstats for whole disks (those under /sys/block: partitions would count twice),
 * without loop and ram devices, which are not hardware.
 */
export function readDiskCounters(root: string): Map<string, DiskCounters> {
  const disks = new Set(listDir(root, 'sys/block'))
  const out = new Map<string, DiskCounters>()
  for (const line of (readText(root, 'proc/diskstats') ?? '').split('\n')) {
    const f = line.trim().split(/\s+/)
    if (f.length < 14) continue
    const name = f[2]!
    if (/^(loop|ram)\d/.test(name) || !disks.has(name.replaceAll('/', '!'))) continue
    const n = f.map(Number)
    out.set(name, {
      read_count: n[3]!,
      read_bytes: n[5]! * SECTOR,
      read_time: n[6]!,
      write_count: n[7]!,
      write_bytes: n[9]! * SECTOR,
      write_time: n[10]!,
      busy_time: n[12]!,
    })
  }
  return out
}

const ZERO: DiskCounters = { read_count: 0, write_count: 0, read_bytes: 0, write_bytes: 0, read_time: 0, write_time: 0, busy_time: 0 }

const sum = (m: Map<string, DiskCounters>): DiskCounters => {
  const t = { ...ZERO }
  for (const c of m.values()) for (const k of Object.keys(t) as (keyof DiskCounters)[]) t[k] += c[k]
  return t
}

/**
 * The sample's disk_io: totals since boot, rates over the interval (bytes/s, operations/s)
 * and busy percent (share of the interval a disk had I/O in flight); per disk the same.
 * Rates are absent on the first reading.
 */
export function diskIo(prev: Map<string, DiskCounters> | null, cur: Map<string, DiskCounters>, seconds: number) {
  const rates = (p: DiskCounters | undefined, c: DiskCounters) => {
    if (!p || seconds <= 0) return {}
    const per = (a: number, b: number) => round(Math.max(0, b - a) / seconds, 1)
    return {
      read_bytes_per_sec: per(p.read_bytes, c.read_bytes),
      write_bytes_per_sec: per(p.write_bytes, c.write_bytes),
      read_ops_per_sec: per(p.read_count, c.read_count),
      write_ops_per_sec: per(p.write_count, c.write_count),
      busy_percent: round(Math.min(100, (Math.max(0, c.busy_time - p.busy_time) / (seconds * 1000)) * 100), 1),
    }
  }
  const disks: Record<string, unknown> = {}
  for (const [name, c] of cur) disks[name] = { ...c, ...rates(prev?.get(name), c) }
  const total = sum(cur)
  return { ...total, ...(prev ? rates(sum(prev), total) : {}), disks }
}
