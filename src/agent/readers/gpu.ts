import { listDir, readLine, readNumber, round } from '../agent.fs'

export interface Gpu {
  name: string
  vendor: string
  load_percent: number | null
  memory_used_mb: number | null
  memory_total_mb: number | null
}

const VENDORS: Record<string, string> = { '0x1002': 'amd', '0x10de': 'nvidia', '0x8086': 'intel' }

/**
 * GPUs the kernel reports load for in sysfs (amdgpu's gpu_busy_percent and VRAM counters),
 * no subprocess. NVIDIA's driver exposes none of this in sysfs (it needs nvidia-smi), so an
 * NVIDIA card is listed without figures.
 */
export function readGpus(root: string): Gpu[] {
  const out: Gpu[] = []
  for (const card of listDir(root, 'sys/class/drm').filter((c) => /^card\d+$/.test(c))) {
    const dev = `sys/class/drm/${card}/device`
    const vendorId = readLine(root, `${dev}/vendor`)
    if (vendorId === null) continue
    const vendor = VENDORS[vendorId] ?? vendorId
    const mb = (f: string) => {
      const v = readNumber(root, `${dev}/${f}`)
      return v === null ? null : round(v / 1024 ** 2, 1)
    }
    out.push({
      name: readLine(root, `${dev}/product_name`) || `${vendor} ${card}`,
      vendor,
      load_percent: readNumber(root, `${dev}/gpu_busy_percent`),
      memory_used_mb: mb('mem_info_vram_used'),
      memory_total_mb: mb('mem_info_vram_total'),
    })
  }
  return out
}
