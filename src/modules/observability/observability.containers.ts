import type { Exposition, MetricType } from './observability.exposition'
import { labelText } from './observability.exposition'

/** A container as a scrape shows it: its labels' values and its newest figures. */
export interface ScrapeContainer {
  name: string
  image: string
  deviceId: string
  clientId: string
  state: string
  health: string
  restartCount: number
  startedAt: number | null
  lastSeenAt: number
  cpuPercent: number | null
  memoryUsedBytes: number | null
  memoryLimitBytes: number | null
  netRx: number | null
  netTx: number | null
  blockRead: number | null
  blockWrite: number | null
  pids: number | null
}

type Family = [name: string, type: MetricType, help: string, read: (c: ScrapeContainer) => number | null]

/**
 * Container families, named as cAdvisor names them where the figure is the same
 * (container_memory_working_set_bytes: usage without inactive file cache, as `docker stats`;
 * container_spec_memory_limit_bytes, container_processes, container_start_time_seconds,
 * container_last_seen). The collector sends CPU, network and block I/O as rates over its
 * interval, not as cAdvisor's counters since start: they are gauges under Vigil's names
 * (rate() of a counter gives the same figure), so no query mistakes one for the other.
 */
const FAMILIES: Family[] = [
  [
    'vigil_container_cpu_usage_ratio',
    'gauge',
    'CPU used over the last interval, 1 = one core (as docker stats, divided by 100)',
    (c) => (c.cpuPercent === null ? null : c.cpuPercent / 100),
  ],
  [
    'container_memory_working_set_bytes',
    'gauge',
    'Memory used without inactive file cache (absent without cgroup memory accounting)',
    (c) => c.memoryUsedBytes,
  ],
  ['container_spec_memory_limit_bytes', 'gauge', 'Memory limit (the host memory when unlimited)', (c) => c.memoryLimitBytes],
  ['vigil_container_network_receive_bytes_per_second', 'gauge', 'Bytes received per second over the last interval', (c) => c.netRx],
  ['vigil_container_network_transmit_bytes_per_second', 'gauge', 'Bytes sent per second over the last interval', (c) => c.netTx],
  ['vigil_container_fs_read_bytes_per_second', 'gauge', 'Block I/O read per second over the last interval', (c) => c.blockRead],
  ['vigil_container_fs_write_bytes_per_second', 'gauge', 'Block I/O written per second over the last interval', (c) => c.blockWrite],
  ['container_processes', 'gauge', 'Processes (PIDs) in the container', (c) => c.pids],
  ['container_start_time_seconds', 'gauge', 'When the container last started (Unix time)', (c) => (c.startedAt === null ? null : c.startedAt / 1000)],
  ['container_last_seen', 'gauge', 'When a collector last listed the container (Unix time)', (c) => c.lastSeenAt / 1000],
  ['vigil_container_running', 'gauge', '1 while the container runs, else 0', (c) => (c.state === 'running' ? 1 : 0)],
  ['vigil_container_unhealthy', 'gauge', '1 while its health check fails, else 0', (c) => (c.health === 'unhealthy' ? 1 : 0)],
  ['vigil_container_restarts_total', 'counter', 'Restarts the engine counted for the container', (c) => c.restartCount],
]

/**
 * The container families of one scrape: only containers present at their device's newest block
 * and seen recently, labelled by name, image, device and account only (never by their own
 * labels or engine id), so the series are bounded by the containers that run.
 */
export function writeContainers(out: Exposition, containers: ScrapeContainer[]) {
  if (!containers.length) return
  const labels = containers.map((c) =>
    labelText([
      ['name', c.name],
      ['image', c.image],
      ['device', c.deviceId],
      ['client', c.clientId],
    ]),
  )
  for (const [name, type, help, read] of FAMILIES) {
    out.family(name, type, help)
    for (let i = 0; i < containers.length; i++) {
      const v = read(containers[i]!)
      if (v !== null && Number.isFinite(v)) out.sample(name, labels[i]!, v)
    }
  }
}
