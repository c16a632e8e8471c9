import { readText } from '../agent.fs'

export interface WifiLink {
  interface: string
  /** the driver's link quality, out of 70 on most drivers */
  link_quality: number
  /** link_quality over 70, capped at 100 (what `iwconfig` shows as n/70) */
  quality_percent: number
  signal_dbm: number
  noise_dbm: number | null
}

/**
 * /proc/net/wireless: two header lines, then per interface its status, link quality, signal
 * level and noise (dBm on modern drivers; a trailing '.' marks an updated value). The first
 * wireless interface is the sample's `wifi`; null on a machine without Wi-Fi.
 */
export function readWifi(root: string): WifiLink | null {
  for (const line of (readText(root, 'proc/net/wireless') ?? '').split('\n').slice(2)) {
    const m = line.match(/^\s*([^:\s]+):\s+\S+\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)/)
    if (!m) continue
    const quality = parseFloat(m[2]!)
    const noise = parseFloat(m[4]!)
    return {
      interface: m[1]!,
      link_quality: quality,
      quality_percent: Math.min(100, Math.round((quality / 70) * 100)),
      signal_dbm: parseFloat(m[3]!),
      // -256 is the kernel's "no noise figure"
      noise_dbm: noise <= -256 || noise === 0 ? null : noise,
    }
  }
  return null
}
