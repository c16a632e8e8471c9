/**
 * The Docker Engine API's answers (API 1.41–1.47, https://docs.docker.com/reference/api/engine/)
 * and Podman's compatible API, built from a fake container's state. Only the fields a client
 * reads plus enough of the rest to look like the real thing.
 */

export type ContainerState = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead'
export type HealthStatus = 'healthy' | 'unhealthy' | 'starting'

/** One fake container: what the engine knows of it, and its cumulative counters for /stats. */
export interface FakeContainer {
  /** the full 64-hex id */
  id: string
  name: string
  image?: string
  labels?: Record<string, string>
  state?: ContainerState
  /** absent: no healthcheck */
  health?: HealthStatus
  exitCode?: number
  oomKilled?: boolean
  restartCount?: number
  startedAt?: string
  finishedAt?: string
  /** the container's first process, as seen from the host */
  pid?: number
  /** container CPU time since start, ns */
  cpuNs?: number
  /** the host's CPU time (all CPUs) at the reading, ns; Podman's answer scopes it to the container's cgroup */
  systemNs?: number
  onlineCpus?: number
  /** null: the kernel has no cgroup memory accounting (the engine then sends an empty memory_stats) */
  memoryUsage?: number | null
  inactiveFile?: number
  memoryLimit?: number
  rxBytes?: number
  txBytes?: number
  readBytes?: number
  writeBytes?: number
  pids?: number
  /** its stats request is held unanswered (an engine that hangs on one container) */
  hangStats?: boolean
}

/** Which engine answers, and how. */
export interface EngineProfile {
  kind: 'docker' | 'podman'
  version: string
  apiVersion: string
  /** memory.stat as cgroup v1 names it (total_inactive_file) or v2 (inactive_file) */
  cgroup: 1 | 2
}

export const ENGINES = {
  'docker-27': { kind: 'docker', version: '27.3.1', apiVersion: '1.47', cgroup: 2 },
  'docker-25': { kind: 'docker', version: '25.0.5', apiVersion: '1.44', cgroup: 2 },
  /** before Docker 25, one-shot stats come with an empty precpu_stats */
  'docker-24': { kind: 'docker', version: '24.0.7', apiVersion: '1.43', cgroup: 2 },
  'docker-20': { kind: 'docker', version: '20.10.24', apiVersion: '1.41', cgroup: 1 },
  'podman-4': { kind: 'podman', version: '4.3.1', apiVersion: '1.41', cgroup: 2 },
} as const satisfies Record<string, EngineProfile>

export type EngineName = keyof typeof ENGINES

const EPOCH = '0001-01-01T00:00:00Z'

export function versionBody(p: EngineProfile) {
  const components =
    p.kind === 'podman'
      ? [{ Name: 'Podman Engine', Version: p.version, Details: { APIVersion: '4.3.1', MinAPIVersion: '4.0.0', Os: 'linux' } }]
      : [
          { Name: 'Engine', Version: p.version, Details: { ApiVersion: p.apiVersion, MinAPIVersion: '1.24', Os: 'linux' } },
          { Name: 'containerd', Version: '1.7.22', Details: {} },
        ]
  return {
    Platform: { Name: p.kind === 'podman' ? 'linux/amd64/debian-12' : 'Docker Engine - Community' },
    Components: components,
    Version: p.version,
    ApiVersion: p.apiVersion,
    MinAPIVersion: p.kind === 'podman' ? '1.24' : '1.24',
    GitCommit: 'fakecommit',
    GoVersion: 'go1.22.7',
    Os: 'linux',
    Arch: 'amd64',
    KernelVersion: '6.1.0-26-amd64',
  }
}

const stateOf = (c: FakeContainer): ContainerState => c.state ?? 'running'

function statusLine(c: FakeContainer): string {
  const s = stateOf(c)
  const health = c.health ? ` (${c.health === 'starting' ? 'health: starting' : c.health})` : ''
  if (s === 'running') return `Up 2 hours${health}`
  if (s === 'exited') return `Exited (${c.exitCode ?? 0}) 5 minutes ago`
  if (s === 'restarting') return `Restarting (${c.exitCode ?? 1}) 3 seconds ago`
  if (s === 'paused') return 'Up 2 hours (Paused)'
  return s.charAt(0).toUpperCase() + s.slice(1)
}

/** One entry of GET /containers/json. */
export function listEntry(c: FakeContainer, p: EngineProfile) {
  return {
    Id: c.id,
    // Docker prefixes names with "/"; Podman's compatible API does too
    Names: [`/${c.name}`],
    Image: c.image ?? 'nginx:1.27',
    ImageID: `sha256:${'ab'.repeat(32)}`,
    Command: 'nginx -g daemon off;',
    Created: 1_732_600_000,
    Ports: [],
    Labels: c.labels ?? {},
    State: stateOf(c),
    Status: statusLine(c),
    HostConfig: { NetworkMode: 'bridge' },
    ...(p.kind === 'podman' && { Pod: '', Pid: c.pid ?? 0 }),
  }
}

/** GET /containers/{id}/json. */
export function inspectBody(c: FakeContainer) {
  const s = stateOf(c)
  return {
    Id: c.id,
    Created: '2026-11-20T10:00:00.000000000Z',
    Path: 'nginx',
    Args: ['-g', 'daemon off;'],
    State: {
      Status: s,
      Running: s === 'running' || s === 'restarting',
      Paused: s === 'paused',
      Restarting: s === 'restarting',
      OOMKilled: c.oomKilled ?? false,
      Dead: s === 'dead',
      Pid: s === 'running' ? (c.pid ?? 4242) : 0,
      ExitCode: c.exitCode ?? 0,
      Error: '',
      StartedAt: c.startedAt ?? '2026-11-27T04:00:00.000000000Z',
      FinishedAt: c.finishedAt ?? EPOCH,
      ...(c.health && { Health: { Status: c.health, FailingStreak: c.health === 'unhealthy' ? 3 : 0, Log: [] } }),
    },
    Image: `sha256:${'ab'.repeat(32)}`,
    Name: `/${c.name}`,
    RestartCount: c.restartCount ?? 0,
    Driver: 'overlay2',
    Platform: 'linux',
    HostConfig: { RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 } },
    Config: { Hostname: c.id.slice(0, 12), Image: c.image ?? 'nginx:1.27', Labels: c.labels ?? {} },
  }
}

const EMPTY_CPU = {
  cpu_usage: { total_usage: 0, usage_in_kernelmode: 0, usage_in_usermode: 0 },
  throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 },
}

/** GET /containers/{id}/stats?stream=false&one-shot=true for a running container. */
export function statsBody(c: FakeContainer, p: EngineProfile, now: Date) {
  const cpuNs = c.cpuNs ?? 0
  const cpu = {
    cpu_usage: { total_usage: cpuNs, usage_in_kernelmode: Math.floor(cpuNs / 4), usage_in_usermode: cpuNs - Math.floor(cpuNs / 4) },
    system_cpu_usage: c.systemNs ?? 0,
    online_cpus: c.onlineCpus ?? 2,
    throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 },
  }
  const memStats =
    p.cgroup === 2
      ? { active_anon: 1_000_000, inactive_anon: 0, active_file: 500_000, inactive_file: c.inactiveFile ?? 0, file: 2_000_000, anon: 3_000_000 }
      : { cache: 2_000_000, rss: 3_000_000, total_inactive_file: c.inactiveFile ?? 0, inactive_file: c.inactiveFile ?? 0, total_rss: 3_000_000 }
  const memory =
    c.memoryUsage === null
      ? {}
      : { usage: c.memoryUsage ?? 50_000_000, limit: c.memoryLimit ?? 8_000_000_000, ...(p.cgroup === 1 && { max_usage: 60_000_000 }), stats: memStats }
  // cgroup v1 writes the op capitalised, v2 in lower case
  const op = (s: string) => (p.cgroup === 1 ? s.charAt(0).toUpperCase() + s.slice(1) : s)
  return {
    read: now.toISOString(),
    preread: EPOCH,
    pids_stats: { current: c.pids ?? 3, limit: 4_000 },
    blkio_stats: {
      io_service_bytes_recursive: [
        { major: 8, minor: 0, op: op('read'), value: c.readBytes ?? 0 },
        { major: 8, minor: 0, op: op('write'), value: c.writeBytes ?? 0 },
      ],
      io_serviced_recursive: null,
    },
    num_procs: 0,
    storage_stats: {},
    cpu_stats: cpu,
    // one-shot: the engine has no earlier reading to compare with
    precpu_stats: EMPTY_CPU,
    memory_stats: memory,
    name: `/${c.name}`,
    id: c.id,
    networks: {
      eth0: { rx_bytes: c.rxBytes ?? 0, rx_packets: 0, rx_errors: 0, rx_dropped: 0, tx_bytes: c.txBytes ?? 0, tx_packets: 0, tx_errors: 0, tx_dropped: 0 },
    },
  }
}
