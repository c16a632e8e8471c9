import type { BatchMetricIn } from '../modules/metrics/metrics.model'
import type { Clock } from '../lib/clock'
import { busyPercent, readCpuFreq, readCpuInfo, readCpuTimes, type CpuTimes } from './readers/cpu'
import { readMemory, readMeminfo } from './readers/memory'
import { readPartitions, type StatFs } from './readers/disks'
import { diskIo, readDiskCounters, type DiskCounters } from './readers/diskio'
import { cpuTemperature, readSensors } from './readers/sensors'
import { readGpus } from './readers/gpu'
import { type NvidiaPoller, withNvidiaFigures } from './readers/nvidia'
import { networkFields, readNicCounters, type NicCounters } from './readers/network'
import { readWifi } from './readers/wireless'
import { readConnections } from './readers/connections'
import { pageSize, readProcStats, topProcesses, type ProcStat, type TopProcess } from './readers/processes'
import type { LatencyFields } from './readers/latency'
import type { ContainersBlock } from './readers/containers/containers.wire'
import type { DisksSmart } from './readers/smart/smart.parse'

type Hardware = NonNullable<BatchMetricIn['hardware']>
type Network = NonNullable<BatchMetricIn['network']>

/**
 * One sample on the wire: the hub's BatchMetricIn (its type only: the agent never loads hub
 * code) with two fields the hub keeps as sent among a part's free-form fields: the top
 * processes and the connect jitter; and the blocks read beside sampling, when there is one
 * to send: the containers, and S.M.A.R.T. after a fresh smartctl run.
 */
export interface AgentSample extends BatchMetricIn {
  recorded_at: string
  hardware: Hardware & { top_processes: { cpu: TopProcess[]; memory: TopProcess[] } }
  network: Network & { jitter_ms: number | null }
  containers?: ContainersBlock
  disks_smart?: DisksSmart
}

/** A reader that runs beside sampling: a sample takes what it has (or nothing) without waiting. */
export interface SideReader<T> {
  latest(): T | undefined
  /** starts its first reading, so that the first sample has it */
  prime?(): void
}

/** The readings a delta needs, kept from one sample to the next. */
interface Readings {
  at: number
  cpu: CpuTimes | null
  disks: Map<string, DiskCounters>
  nics: Map<string, NicCounters>
  procs: Map<number, ProcStat>
}

export interface SamplerDeps {
  /** filesystem root the readers read under: '/' in production */
  root: string
  clock: Clock
  /** monotonic milliseconds, for the interval between readings */
  monotonic?: () => number
  /** latency to the hub, measured per sample; absent in --once without a hub */
  latency?: () => Promise<LatencyFields>
  statfs?: (mountpoint: string) => StatFs
  topProcesses?: number
  /** nvidia-smi's figures for NVIDIA cards, when the tool is installed */
  nvidia?: NvidiaPoller | null
  /** the containers block (Docker, Podman), read beside sampling */
  containers?: SideReader<ContainersBlock> | null
  /** S.M.A.R.T. results, handed out once after each smartctl run */
  smart?: SideReader<DisksSmart> | null
}

const NO_LATENCY: LatencyFields = {
  latency_avg_ms: null,
  latency_min_ms: null,
  latency_max_ms: null,
  jitter_ms: null,
  packet_loss_percent: null,
  dns_resolve_ms: null,
}

/**
 * Builds samples from /proc and /sys. Rates and percentages come from the difference with the
 * previous reading, so the first sample after start has none of them unless `prime()` ran a
 * moment before (psutil's cpu_percent(interval=None) behaves alike).
 */
export function createSampler(deps: SamplerDeps) {
  const { root } = deps
  const monotonic = deps.monotonic ?? (() => performance.now())
  const firstCpu = readCpuTimes(root)
  // counts, model and page size do not change while the agent runs
  const info = readCpuInfo(root, firstCpu)
  const page = pageSize(root)
  let prev: Readings | null = null

  const read = (): Readings => ({
    at: monotonic(),
    cpu: readCpuTimes(root),
    disks: readDiskCounters(root),
    nics: readNicCounters(root),
    procs: readProcStats(root),
  })

  /** Synchronous part: every /proc and /sys reader. */
  function collect(recordedAt: number): Omit<AgentSample, 'network'> & { network: Omit<AgentSample['network'], keyof LatencyFields> } {
    const cur = read()
    const seconds = prev ? (cur.at - prev.at) / 1000 : 0
    const cpuPercent = prev?.cpu && cur.cpu ? busyPercent(prev.cpu.total, cur.cpu.total) : null
    const perCore = prev?.cpu && cur.cpu ? cur.cpu.cores.map((c, i) => busyPercent(prev!.cpu!.cores[i] ?? c, c)) : null
    const { temperatures, fans } = readSensors(root)
    const sysfsGpus = readGpus(root)
    // the tool runs only on a machine whose sysfs lists an NVIDIA card
    const gpus = sysfsGpus.some((g) => g.vendor === 'nvidia') ? withNvidiaFigures(sysfsGpus, deps.nvidia?.latest() ?? null) : sysfsGpus
    const gpu = gpus.find((g) => g.load_percent !== null) ?? gpus[0]
    const memTotal = readMeminfo(root).get('MemTotal') ?? 0
    const hardware: AgentSample['hardware'] = {
      cpu_percent: cpuPercent,
      cpu_per_core: perCore,
      ...info,
      ...readCpuFreq(root),
      ...readMemory(root),
      gpus: gpus as unknown as Hardware['gpus'],
      gpu_name: gpu?.name ?? null,
      gpu_load: gpu?.load_percent ?? null,
      disk_partitions: readPartitions(root, deps.statfs) as unknown as Hardware['disk_partitions'],
      disk_io: diskIo(prev?.disks ?? null, cur.disks, seconds),
      temperatures,
      fans,
      cpu_temp_c: cpuTemperature(temperatures),
      top_processes: topProcesses(prev?.procs ?? null, cur.procs, seconds, memTotal, page, deps.topProcesses ?? 5),
    }
    const network = {
      ...networkFields(root, prev?.nics ?? null, cur.nics, seconds),
      wifi: readWifi(root),
      connections: readConnections(root),
    } as Omit<AgentSample['network'], keyof LatencyFields>
    prev = cur
    return { recorded_at: new Date(recordedAt).toISOString(), hardware, network }
  }

  return {
    /** takes a first reading so that the next sample has rates */
    prime(): void {
      prev = read()
      // starts the GPU tool's first run, so that a sample a moment later has its figures
      if (readGpus(root).some((g) => g.vendor === 'nvidia')) deps.nvidia?.latest()
      // the engine's first answer, so that the first sample has the containers
      deps.containers?.prime?.()
    },
    async sample(): Promise<AgentSample> {
      const base = collect(deps.clock.now())
      // taken with the readings, not after the latency probe: one moment's view
      const containers = deps.containers?.latest()
      const smart = deps.smart?.latest()
      const latency = deps.latency ? await deps.latency().catch(() => NO_LATENCY) : NO_LATENCY
      return { ...base, network: { ...base.network, ...latency }, ...(containers && { containers }), ...(smart && { disks_smart: smart }) }
    },
  }
}

export type Sampler = ReturnType<typeof createSampler>
