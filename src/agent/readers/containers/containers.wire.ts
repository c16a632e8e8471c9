/**
 * The batch's `containers` block as the hub takes it (the wire shape both sides build to). The
 * agent never loads hub code, so the shape is written here as a type; every bound below is the
 * hub's, and the collector cuts to it before sending.
 */
export const BOUNDS = {
  items: 500,
  id: 128,
  name: 255,
  image: 512,
  labels: 32,
  labelKey: 128,
  labelValue: 512,
  version: 64,
  apiVersion: 16,
  reason: 500,
} as const

export type ContainerStateName = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead'
export type ContainerHealth = 'healthy' | 'unhealthy' | 'starting' | 'none'

export interface ContainerItem {
  id: string
  name: string
  image: string
  labels: Record<string, string>
  state: ContainerStateName
  health: ContainerHealth
  exit_code: number | null
  oom_killed: boolean
  restart_count: number
  started_at: string | null
  finished_at: string | null
  cpu_percent: number | null
  memory_used_bytes: number | null
  memory_limit_bytes: number | null
  net_rx_bytes_per_sec: number | null
  net_tx_bytes_per_sec: number | null
  block_read_bytes_per_sec: number | null
  block_write_bytes_per_sec: number | null
  pids: number | null
}

export interface EngineInfo {
  kind: 'docker' | 'podman' | 'cgroup'
  version: string
  api_version: string | null
}

export interface ContainersBlock {
  engine: EngineInfo | null
  unavailable_reason: string | null
  memory_accounting: boolean
  items: ContainerItem[]
}
