import { GIB, readText, round } from '../agent.fs'

export interface MemoryReading {
  ram_total_gb: number | null
  ram_used_gb: number | null
  ram_available_gb: number | null
  ram_percent: number | null
  swap_total_gb: number | null
  swap_used_gb: number | null
  swap_percent: number | null
}

/** /proc/meminfo in bytes, by field name. */
export function readMeminfo(root: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of (readText(root, 'proc/meminfo') ?? '').split('\n')) {
    const m = line.match(/^(\w+(?:\(\w+\))?):\s+(\d+)(?:\s+kB)?/)
    if (m) out.set(m[1]!, Number(m[2]) * (line.includes('kB') ? 1024 : 1))
  }
  return out
}

/**
 * psutil's virtual_memory and swap_memory: used = total - free - buffers - cached, where
 * cached includes SReclaimable; percent = (total - available) / total. A kernel without
 * MemAvailable (before 3.14) gets psutil's fallback of free + buffers + cached.
 */
export function readMemory(root: string): MemoryReading {
  const mi = readMeminfo(root)
  const total = mi.get('MemTotal')
  if (total === undefined || total <= 0) {
    return { ram_total_gb: null, ram_used_gb: null, ram_available_gb: null, ram_percent: null, swap_total_gb: null, swap_used_gb: null, swap_percent: null }
  }
  const free = mi.get('MemFree') ?? 0
  const buffers = mi.get('Buffers') ?? 0
  const cached = (mi.get('Cached') ?? 0) + (mi.get('SReclaimable') ?? 0)
  let used = total - free - buffers - cached
  if (used < 0) used = total - free // containers (LXC) report odd figures; psutil does the same
  let available = mi.get('MemAvailable') ?? free + buffers + cached
  // psutil's sanity rule for the same odd container figures
  if (available > total) available = free
  const swapTotal = mi.get('SwapTotal') ?? 0
  const swapUsed = swapTotal - (mi.get('SwapFree') ?? 0)
  return {
    ram_total_gb: round(total / GIB, 3),
    ram_used_gb: round(used / GIB, 3),
    ram_available_gb: round(available / GIB, 3),
    ram_percent: round(((total - available) / total) * 100, 1),
    swap_total_gb: round(swapTotal / GIB, 3),
    swap_used_gb: round(swapUsed / GIB, 3),
    swap_percent: swapTotal > 0 ? round((swapUsed / swapTotal) * 100, 1) : 0,
  }
}
