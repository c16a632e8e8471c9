import { AppError } from '../../http/errors'
import { toIso, type Clock } from '../../lib/clock'
import type { Container, ContainerPage, FleetQuery } from './containers.model'
import type { ScrapeContainer } from '../observability/observability.containers'
import type { ContainerRow, ContainersStore, FleetRow } from './containers.store'
import { cpuSparks, SPARK_MS } from './containers.spark'

/** What the containers need of the devices domain. */
export interface ContainerDevices {
  /** a device of this client for a portal read (its id and the integer seq the series are keyed on); 404 otherwise */
  ref(clientId: string, deviceId: string): { id: string; seq: number } | Promise<{ id: string; seq: number }>
}

export interface ContainersDeps {
  store: ContainersStore
  clock: Clock
  devices: ContainerDevices
}

const iso = (ms: number | null) => (ms === null ? null : toIso(ms))

export const memoryPercent = (r: Pick<ContainerRow, 'memory_used_bytes' | 'memory_limit_bytes'>) =>
  r.memory_used_bytes !== null && r.memory_limit_bytes ? (r.memory_used_bytes / r.memory_limit_bytes) * 100 : null

export function toContainer(r: FleetRow): Container {
  return {
    container_id: r.id,
    device_id: r.device_id,
    device_name: r.device_name,
    engine_id: r.engine_id,
    name: r.name,
    image: r.image,
    labels: JSON.parse(r.labels) as Record<string, string>,
    state: r.state as Container['state'],
    health: r.health as Container['health'],
    exit_code: r.exit_code,
    oom_killed: r.oom_killed === 1,
    restart_count: r.restart_count,
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
    uptime_seconds: r.state === 'running' && r.started_at !== null ? Math.max(0, Math.floor((r.last_seen_at - r.started_at) / 1000)) : null,
    needs_attention: r.attention === 1,
    cpu_percent: r.cpu_percent,
    memory_used_bytes: r.memory_used_bytes,
    memory_limit_bytes: r.memory_limit_bytes,
    memory_percent: memoryPercent(r),
    memory_accounting: r.memory_accounting === 1,
    net_rx_bytes_per_sec: r.net_rx,
    net_tx_bytes_per_sec: r.net_tx,
    block_read_bytes_per_sec: r.block_read,
    block_write_bytes_per_sec: r.block_write,
    pids: r.pids,
    first_seen_at: toIso(r.first_seen_at),
    last_seen_at: toIso(r.last_seen_at),
    gone_at: iso(r.gone_at),
  }
}

/** A device's containers (gone ones last), with what its collector last said of the engine. */
export async function deviceContainers(deps: ContainersDeps, clientId: string, deviceId: string) {
  const device = await deps.devices.ref(clientId, deviceId)
  const now = deps.clock.now()
  const [engine, { rows }, recent] = await Promise.all([
    deps.store.engine(device.id),
    deps.store.fleet(clientId, { deviceId: device.id }, 'name', 100_000, 0),
    deps.store.series(device.seq, 0, now - SPARK_MS, now + 1),
  ])
  const items = rows.map(toContainer).sort((a, b) => Number(a.state === 'gone') - Number(b.state === 'gone'))
  return {
    device_id: device.id,
    engine: engine
      ? {
          kind: engine.kind as 'docker' | 'podman' | 'cgroup' | null,
          version: engine.version,
          api_version: engine.api_version,
          unavailable_reason: engine.unavailable_reason,
          memory_accounting: engine.memory_accounting === 1,
          recorded_at: toIso(engine.ts),
        }
      : null,
    items,
    cpu_spark: cpuSparks(
      recent,
      rows.filter((r) => r.state !== 'gone'),
      now,
    ),
  }
}

/** The account's containers over every device, filtered, sorted ("needs attention" first by default) and paged. */
export async function fleetContainers(deps: ContainersDeps, clientId: string, q: FleetQuery): Promise<ContainerPage> {
  // a device of another account (or none) is a 404, as everywhere else, not an empty page
  if (q.device_id !== undefined) await deps.devices.ref(clientId, q.device_id)
  const { rows, total } = await deps.store.fleet(
    clientId,
    { state: q.state, health: q.health, image: q.image, name: q.name, deviceId: q.device_id, attention: q.needs_attention },
    q.sort,
    q.limit,
    q.offset,
  )
  const c = await deps.store.counts(clientId)
  return {
    items: rows.map(toContainer),
    total,
    limit: q.limit,
    offset: q.offset,
    counts: { containers: c.containers, running: c.running, needs_attention: c.attention },
  }
}

/** One container of one device of this client; 404 for anything else (another account's included). */
export async function findContainer(deps: ContainersDeps, clientId: string, deviceId: string, containerId: string) {
  const device = await deps.devices.ref(clientId, deviceId)
  const row = await deps.store.byId(clientId, device.id, containerId)
  if (!row) throw new AppError('not_found', 'Container not found')
  return { device, row }
}

/** A container's state history, newest first. */
export async function containerEvents(deps: ContainersDeps, clientId: string, deviceId: string, containerId: string, limit: number, offset: number) {
  const { row } = await findContainer(deps, clientId, deviceId, containerId)
  const [events, total] = await Promise.all([deps.store.events(row.seq, limit, offset), deps.store.eventCount(row.seq)])
  return {
    container_id: row.id,
    name: row.name,
    items: events.map((e) => ({
      kind: e.kind as 'created',
      at: toIso(e.ts),
      exit_code: e.exit_code,
      restart_count: e.restart_count,
      engine_id: e.engine_id,
    })),
    total,
    limit,
    offset,
  }
}

/** The containers a /metrics scrape shows: present at their device's newest block, seen since a time. */
export async function scrapeContainers(deps: Pick<ContainersDeps, 'store'>, clientId: string | null, since: number): Promise<ScrapeContainer[]> {
  return (await deps.store.present(clientId, since)).map((r) => ({
    name: r.name,
    image: r.image,
    deviceId: r.device_id,
    clientId: r.client_id,
    state: r.state,
    health: r.health,
    restartCount: r.restart_count,
    startedAt: r.started_at,
    lastSeenAt: r.last_seen_at,
    cpuPercent: r.cpu_percent,
    memoryUsedBytes: r.memory_used_bytes,
    memoryLimitBytes: r.memory_limit_bytes,
    netRx: r.net_rx,
    netTx: r.net_tx,
    blockRead: r.block_read,
    blockWrite: r.block_write,
    pids: r.pids,
  }))
}
