import { listDir, readText, round } from '../agent.fs'

/** Linux reports process times in USER_HZ, fixed at 100 for user space on x86 and ARM. */
const CLK_TCK = 100

export interface ProcStat {
  name: string
  /** utime + stime, in ticks */
  ticks: number
  /** resident pages */
  rss: number
}

/**
 * /proc/<pid>/stat of every process: the name is between the first '(' and the last ')'
 * (a name may itself hold spaces and parentheses); utime and stime are fields 14 and 15,
 * rss field 24. A process that exits while being read is skipped.
 */
export function readProcStats(root: string): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>()
  for (const entry of listDir(root, 'proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const text = readText(root, `proc/${entry}/stat`)
    if (text === null) continue
    const open = text.indexOf('(')
    const close = text.lastIndexOf(')')
    if (open === -1 || close === -1) continue
    // fields after the name start at field 3 (state)
    const f = text.slice(close + 2).split(' ')
    out.set(pid, { name: text.slice(open + 1, close), ticks: Number(f[11]) + Number(f[12]), rss: Number(f[21]) })
  }
  return out
}

export interface TopProcess {
  pid: number
  name: string
  /** share of one CPU over the interval, as psutil's Process.cpu_percent (can pass 100 on many cores) */
  cpu_percent: number
  /** resident memory over total RAM */
  memory_percent: number
}

/**
 * The `limit` processes using the most CPU over the interval and the most memory now. CPU
 * needs two readings: on the first, every process reads 0 %.
 */
export function topProcesses(
  prev: Map<number, ProcStat> | null,
  cur: Map<number, ProcStat>,
  seconds: number,
  memTotalBytes: number,
  pageSize: number,
  limit = 5,
): { cpu: TopProcess[]; memory: TopProcess[] } {
  const all: TopProcess[] = []
  for (const [pid, p] of cur) {
    const before = prev?.get(pid)
    const cpu = before && before.name === p.name && seconds > 0 ? (Math.max(0, p.ticks - before.ticks) / CLK_TCK / seconds) * 100 : 0
    all.push({ pid, name: p.name, cpu_percent: round(cpu, 1), memory_percent: memTotalBytes > 0 ? round(((p.rss * pageSize) / memTotalBytes) * 100, 2) : 0 })
  }
  const cpu = [...all].sort((a, b) => b.cpu_percent - a.cpu_percent || a.pid - b.pid).slice(0, limit)
  const memory = [...all].sort((a, b) => b.memory_percent - a.memory_percent || a.pid - b.pid).slice(0, limit)
  return { cpu, memory }
}

/**
 * The kernel's page size (4 KiB on x64, 4 or 16 KiB on arm64 boards), without a syscall Bun
 * does not expose: this process's resident size in kB (status) over its resident pages (statm).
 */
export function pageSize(root: string): number {
  const statm = Number((readText(root, 'proc/self/statm') ?? '').split(' ')[1])
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readText(root, 'proc/self/status') ?? '')?.[1])
  if (!(statm > 0) || !(kb > 0)) return 4096
  // the two reads are a moment apart: round to the nearest power of two
  return 2 ** Math.round(Math.log2((kb * 1024) / statm))
}
