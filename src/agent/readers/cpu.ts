import { listDir, readNumber, readText, round } from '../agent.fs'

/** Jiffies per CPU from /proc/stat: the total line, then one per online core. */
export interface CpuTimes {
  total: number[]
  cores: number[][]
}

/** /proc/stat: user nice system idle iowait irq softirq steal guest guest_nice */
export function readCpuTimes(root: string): CpuTimes | null {
  const text = readText(root, 'proc/stat')
  if (text === null) return null
  let total: number[] | null = null
  const cores: number[][] = []
  for (const line of text.split('\n')) {
    if (!line.startsWith('cpu')) continue
    const [name, ...rest] = line.trim().split(/\s+/)
    const values = rest.map(Number)
    if (name === 'cpu') total = values
    else cores.push(values)
  }
  return total ? { total, cores } : null
}

/**
 * psutil's cpu_percent: busy share of the time between two readings. Guest time is already
 * counted in user and nice, so it is taken out of the total; idle and iowait are not busy.
 */
export function busyPercent(prev: number[], cur: number[]): number {
  const delta = cur.map((v, i) => Math.max(0, v - (prev[i] ?? 0)))
  const all = delta.reduce((a, b) => a + b, 0) - (delta[8] ?? 0) - (delta[9] ?? 0)
  if (all <= 0) return 0
  const busy = all - (delta[3] ?? 0) - (delta[4] ?? 0)
  return round(Math.min(100, Math.max(0, (busy / all) * 100)), 1)
}

export interface CpuInfo {
  cpu_count_logical: number | null
  cpu_count_physical: number | null
  cpu_brand: string | null
}

const cpuinfoField = (text: string, name: string): string | null => {
  const m = text.match(new RegExp(`^${name}\\s*:\\s*(.+)$`, 'mi'))
  return m ? m[1]!.trim() : null
}

/**
 * Counts and model: these do not change while the agent runs, so they are read once.
 * Physical cores as psutil counts them: distinct core_cpus_list (or thread_siblings_list)
 * in sysfs, else distinct (physical id, core id) pairs in /proc/cpuinfo.
 */
export function readCpuInfo(root: string, times: CpuTimes | null): CpuInfo {
  const cpuinfo = readText(root, 'proc/cpuinfo') ?? ''
  const logical = times?.cores.length || cpuinfo.match(/^processor\s*:/gm)?.length || null
  const cores = new Set<string>()
  for (const cpu of listDir(root, 'sys/devices/system/cpu').filter((n) => /^cpu\d+$/.test(n))) {
    const list =
      readText(root, `sys/devices/system/cpu/${cpu}/topology/core_cpus_list`) ?? readText(root, `sys/devices/system/cpu/${cpu}/topology/thread_siblings_list`)
    if (list !== null) cores.add(list.trim())
  }
  let physical: number | null = cores.size || null
  if (physical === null) {
    const pairs = new Set<string>()
    for (const block of cpuinfo.split(/\n\s*\n/)) {
      const pkg = cpuinfoField(block, 'physical id')
      const core = cpuinfoField(block, 'core id')
      if (pkg !== null && core !== null) pairs.add(`${pkg}/${core}`)
    }
    physical = pairs.size || null
  }
  // x86 names the model; ARM boards name the board (Model) or the SoC (Hardware)
  const brand = cpuinfoField(cpuinfo, 'model name') ?? cpuinfoField(cpuinfo, 'Model') ?? cpuinfoField(cpuinfo, 'Hardware') ?? cpuinfoField(cpuinfo, 'Processor')
  return { cpu_count_logical: logical, cpu_count_physical: physical, cpu_brand: brand }
}

/**
 * Frequency in MHz as psutil reports it: the mean of the cores' cpufreq scaling_cur_freq and
 * cpuinfo_max_freq; without cpufreq (most VMs), the mean "cpu MHz" of /proc/cpuinfo and no max.
 */
export function readCpuFreq(root: string): { cpu_freq_current: number | null; cpu_freq_max: number | null } {
  const cur: number[] = []
  const max: number[] = []
  for (const cpu of listDir(root, 'sys/devices/system/cpu').filter((n) => /^cpu\d+$/.test(n))) {
    const c = readNumber(root, `sys/devices/system/cpu/${cpu}/cpufreq/scaling_cur_freq`)
    const m = readNumber(root, `sys/devices/system/cpu/${cpu}/cpufreq/cpuinfo_max_freq`)
    if (c !== null) cur.push(c / 1000)
    if (m !== null) max.push(m / 1000)
  }
  const mean = (xs: number[]) => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 1) : null)
  if (cur.length) return { cpu_freq_current: mean(cur), cpu_freq_max: mean(max) }
  const mhz = [...(readText(root, 'proc/cpuinfo') ?? '').matchAll(/^cpu MHz\s*:\s*([\d.]+)/gm)].map((m) => Number(m[1]))
  return { cpu_freq_current: mean(mhz), cpu_freq_max: null }
}
