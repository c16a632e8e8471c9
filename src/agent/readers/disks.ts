import { statfsSync } from 'node:fs'
import { join } from 'node:path'
import { GIB, readText, round } from '../agent.fs'

export interface Partition {
  device: string
  mountpoint: string
  fstype: string
  total_gb: number
  used_gb: number
  free_gb: number
  /** used / (used + free to users), as `df` and psutil */
  percent: number
  total: number
  used: number
  free: number
}

export interface StatFs {
  bsize: number
  blocks: number
  bfree: number
  bavail: number
}

/** /proc/self/mounts escapes blanks and backslashes in octal (\040). */
const unescapeOctal = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)))

/** Filesystem types backed by a device, per /proc/filesystems (no "nodev"), plus zfs as psutil does. */
function realFsTypes(root: string): Set<string> {
  const out = new Set<string>(['zfs'])
  for (const line of (readText(root, 'proc/filesystems') ?? '').split('\n')) {
    const [a, b] = line.split('\t')
    if (a === '' && b) out.add(b.trim())
  }
  return out
}

/**
 * Every real filesystem with psutil's disk_partitions() rule (a device-backed type, a device
 * named), plus the filesystem mounted at `/` whatever its type, since a container's root is an
 * overlay and is the disk that fills. A device mounted in several places (bind mounts) is
 * reported once, at its shortest mount point. Sizes are psutil's disk_usage: total and used
 * count the root reserve, free and percent are what users can still write.
 */
export function readPartitions(root: string, statfs: (mountpoint: string) => StatFs = (m) => statfsSync(join(root, m))): Partition[] {
  const types = realFsTypes(root)
  const byDevice = new Map<string, { device: string; mountpoint: string; fstype: string }>()
  for (const line of (readText(root, 'proc/self/mounts') ?? '').split('\n')) {
    const [rawDevice, rawMount, fstype] = line.split(' ')
    if (!rawDevice || !rawMount || !fstype) continue
    const device = rawDevice === 'none' ? '' : unescapeOctal(rawDevice)
    const mountpoint = unescapeOctal(rawMount)
    if (mountpoint !== '/' && (device === '' || !types.has(fstype))) continue
    const key = device || mountpoint
    const seen = byDevice.get(key)
    if (!seen || mountpoint.length < seen.mountpoint.length) byDevice.set(key, { device, mountpoint, fstype })
  }
  const out: Partition[] = []
  for (const m of byDevice.values()) {
    let st: StatFs
    try {
      st = statfs(m.mountpoint)
    } catch {
      continue // unmounted since, or not ours to read
    }
    const total = st.blocks * st.bsize
    const used = total - st.bfree * st.bsize
    const free = st.bavail * st.bsize
    if (total <= 0) continue
    const userTotal = used + free
    out.push({
      device: m.device,
      mountpoint: m.mountpoint,
      fstype: m.fstype,
      total_gb: round(total / GIB, 3),
      used_gb: round(used / GIB, 3),
      free_gb: round(free / GIB, 3),
      percent: userTotal > 0 ? round((used / userTotal) * 100, 1) : 0,
      total,
      used,
      free,
    })
  }
  return out
}
