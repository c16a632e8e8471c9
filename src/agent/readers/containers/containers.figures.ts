import { round } from '../../agent.fs'

/**
 * One reading of a running container's counters, from the engine's /stats or from its cgroup
 * files. Rates and the CPU share come from two successive readings: the collector keeps the
 * last one per container, so it never depends on the engine's precpu_stats (empty with
 * one-shot stats, and wrong before Docker 25).
 */
export interface Reading {
  /** monotonic ms when it was taken */
  at: number
  /** the container's CPU time, ns */
  cpuNs: number
  /** the host's CPU time over all CPUs, ns (Docker's system_cpu_usage); null where it is not the host's */
  systemNs: number | null
  onlineCpus: number
  /** usage − inactive file cache; null without cgroup memory accounting */
  memoryUsed: number | null
  memoryLimit: number | null
  rx: number | null
  tx: number | null
  read: number | null
  write: number | null
  pids: number | null
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {})

/**
 * The memory figure `docker stats` shows: usage minus the inactive file cache (cgroup v2
 * `inactive_file`, v1 `total_inactive_file`). An empty memory_stats, or a usage of 0 with no
 * breakdown, is a kernel without cgroup memory accounting (Raspberry Pi OS's default): null,
 * never 0.
 */
export function memoryFromStats(memoryStats: unknown): { used: number | null; limit: number | null } {
  const m = obj(memoryStats)
  const usage = num(m.usage)
  const stats = obj(m.stats)
  if (usage === null || (usage === 0 && Object.keys(stats).length === 0)) return { used: null, limit: null }
  const inactive = num(stats.inactive_file) ?? num(stats.total_inactive_file) ?? 0
  return { used: Math.max(0, usage - (inactive < usage ? inactive : 0)), limit: num(m.limit) }
}

/** Sums the block I/O service bytes by direction; cgroup v1 writes "Read", v2 "read". */
function blockIo(blkio: unknown): { read: number | null; write: number | null } {
  const rows = obj(blkio).io_service_bytes_recursive
  if (!Array.isArray(rows)) return { read: null, write: null }
  let read = 0
  let write = 0
  for (const r of rows) {
    const op = String(obj(r).op ?? '').toLowerCase()
    const value = num(obj(r).value) ?? 0
    if (op === 'read') read += value
    else if (op === 'write') write += value
  }
  return { read, write }
}

function networkTotals(networks: unknown): { rx: number | null; tx: number | null } {
  const nets = Object.values(obj(networks))
  if (!nets.length) return { rx: null, tx: null }
  let rx = 0
  let tx = 0
  for (const n of nets) {
    rx += num(obj(n).rx_bytes) ?? 0
    tx += num(obj(n).tx_bytes) ?? 0
  }
  return { rx, tx }
}

/** A reading from GET /containers/{id}/stats. */
export function readingFromStats(body: unknown, at: number): Reading {
  const s = obj(body)
  const cpu = obj(s.cpu_stats)
  const mem = memoryFromStats(s.memory_stats)
  const percpu = obj(cpu.cpu_usage).percpu_usage
  return {
    at,
    cpuNs: num(obj(cpu.cpu_usage).total_usage) ?? 0,
    systemNs: num(cpu.system_cpu_usage),
    onlineCpus: num(cpu.online_cpus) || (Array.isArray(percpu) ? percpu.length : 0) || 1,
    memoryUsed: mem.used,
    memoryLimit: mem.limit,
    ...networkTotals(s.networks),
    ...blockIo(s.blkio_stats),
    pids: num(obj(s.pids_stats).current),
  }
}

export interface Figures {
  cpu_percent: number | null
  memory_used_bytes: number | null
  memory_limit_bytes: number | null
  net_rx_bytes_per_sec: number | null
  net_tx_bytes_per_sec: number | null
  block_read_bytes_per_sec: number | null
  block_write_bytes_per_sec: number | null
  pids: number | null
}

/**
 * How the CPU share is worked out:
 * - 'system' is `docker stats`: (Δcontainer / Δhost CPU time) × online CPUs × 100;
 * - 'wall' is Δcontainer / Δwall time × 100, for Podman (its system_cpu_usage is scoped to the
 *   container's cgroup, so Docker's formula would read nonsense) and for cgroup files.
 * Both read 100 for one core kept busy.
 */
export type CpuFormula = 'system' | 'wall'

const rate = (prev: number | null | undefined, cur: number | null, seconds: number): number | null =>
  prev == null || cur === null || seconds <= 0 || cur < prev ? null : round((cur - prev) / seconds, 1)

/** The figures of one running container: the latest reading, against the one before it when there is one. */
export function figuresOf(prev: Reading | null, cur: Reading, formula: CpuFormula): Figures {
  const seconds = prev ? (cur.at - prev.at) / 1000 : 0
  let cpu: number | null = null
  if (prev && cur.cpuNs >= prev.cpuNs) {
    const dc = cur.cpuNs - prev.cpuNs
    if (formula === 'system') {
      const ds = cur.systemNs !== null && prev.systemNs !== null ? cur.systemNs - prev.systemNs : 0
      if (ds > 0) cpu = round((dc / ds) * cur.onlineCpus * 100)
    } else if (seconds > 0) cpu = round((dc / (seconds * 1e9)) * 100)
  }
  return {
    cpu_percent: cpu,
    memory_used_bytes: cur.memoryUsed,
    memory_limit_bytes: cur.memoryUsed === null ? null : cur.memoryLimit,
    net_rx_bytes_per_sec: rate(prev?.rx, cur.rx, seconds),
    net_tx_bytes_per_sec: rate(prev?.tx, cur.tx, seconds),
    block_read_bytes_per_sec: rate(prev?.read, cur.read, seconds),
    block_write_bytes_per_sec: rate(prev?.write, cur.write, seconds),
    pids: cur.pids,
  }
}

/** Figures of a container that is not running: nothing to measure. */
export const NO_FIGURES: Figures = {
  cpu_percent: null,
  memory_used_bytes: null,
  memory_limit_bytes: null,
  net_rx_bytes_per_sec: null,
  net_tx_bytes_per_sec: null,
  block_read_bytes_per_sec: null,
  block_write_bytes_per_sec: null,
  pids: null,
}
