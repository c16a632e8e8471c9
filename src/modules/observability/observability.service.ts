import type { Clock } from '../../lib/clock'
import { VERSION } from '../../version'
import type { MetricKind } from '../metrics/metrics.fields'
import { Exposition, labelText } from './observability.exposition'
import { writeContainers, type ScrapeContainer } from './observability.containers'
import { FRESH_MS, writeFleet, type LatestRows } from './observability.fleet'
import type { Registry } from './observability.registry'

/** A device as a scrape labels it. */
export interface ScrapeDevice {
  id: string
  clientId: string
  hostname: string | null
  seq: number
}

/** the other domains may answer either way (their stores are asynchronous on PostgreSQL): awaited */
type Awaitable<T> = T | Promise<T>

/** What a scrape reads, all through the other domains' services: it has no statements of its own. */
export interface ObservabilityDeps {
  registry: Registry
  clock: Clock
  /** when the process started (ms) */
  startedAt: number
  /** the process's open descriptors and their limit (null: unknown here) */
  fds?: () => { open: number; max: number | null } | null
  /**
   * The database's size in bytes (the SQLite file, or the PostgreSQL database), its write-ahead
   * log file (null on PostgreSQL: the server's WAL is its own); the storage module's gauges
   * (space per tier, budget, disk)
   */
  storage: { databaseBytes(): Awaitable<number>; walBytes(): Awaitable<number | null>; gauges(): Awaitable<ServiceGauge[]> }
  /** the devices a scrape covers: one client's, or all (null) */
  devices(clientId: string | null): Awaitable<ScrapeDevice[]>
  /** each device's newest sample of a kind: [seq, ts, ...hot values] */
  latest(kind: MetricKind, seqs: number[]): Awaitable<LatestRows>
  /** the containers present and seen since a time: one client's, or all (null) */
  containers?(clientId: string | null, since: number): Awaitable<ScrapeContainer[]>
  /** other domains' families (service checks), each writing what the scope may see */
  sections?: ((out: Exposition, scope: ScrapeScope) => Awaitable<void>)[]
}

/** One sample of a gauge another module reports; samples of one name come together, the first carries the help. */
export interface ServiceGauge {
  name: string
  help: string
  labels?: [string, string][]
  value: number
}

/** Who scrapes: the operator or the metrics token see everything; a tenant's key only its own devices. */
export type ScrapeScope = { kind: 'instance' } | { kind: 'client'; clientId: string }

/**
 * The exposition for one scrape. The service's own families (traffic, storage, jobs) describe
 * the whole instance and are shown only to an instance-wide scrape; the fleet families to both.
 */
export async function scrape(deps: ObservabilityDeps, scope: ScrapeScope): Promise<string> {
  const out = new Exposition()
  const now = deps.clock.now()
  if (scope.kind === 'instance') await writeService(deps, out)
  const devices = await deps.devices(scope.kind === 'client' ? scope.clientId : null)
  const labels = new Map<number, string>()
  for (const d of devices)
    labels.set(
      d.seq,
      labelText([
        ['device', d.id],
        ['hostname', d.hostname ?? ''],
        ['client', d.clientId],
      ]),
    )
  const seqs = devices.map((d) => d.seq)
  const [hardware, network] = await Promise.all([deps.latest('hardware', seqs), deps.latest('network', seqs)])
  writeFleet(out, labels, { hardware, network }, now)
  if (deps.containers) writeContainers(out, await deps.containers(scope.kind === 'client' ? scope.clientId : null, now - FRESH_MS))
  for (const write of deps.sections ?? []) await write(out, scope)
  return out.text()
}

async function writeService(deps: ObservabilityDeps, out: Exposition) {
  const [databaseBytes, walBytes, gauges] = await Promise.all([deps.storage.databaseBytes(), deps.storage.walBytes(), deps.storage.gauges()])
  out.family('vigil_build_info', 'gauge', 'Always 1; the labels name the running build')
  out.sample(
    'vigil_build_info',
    labelText([
      ['version', VERSION],
      ['bun_version', Bun.version],
    ]),
    1,
  )
  out.family('process_start_time_seconds', 'gauge', 'Start time of the process since unix epoch in seconds')
  out.sample('process_start_time_seconds', '', deps.startedAt / 1000)
  out.family('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes')
  out.sample('process_resident_memory_bytes', '', process.memoryUsage.rss())
  const fds = deps.fds?.()
  if (fds) {
    out.family('process_open_fds', 'gauge', 'Number of open file descriptors')
    out.sample('process_open_fds', '', fds.open)
    if (fds.max !== null) {
      out.family('process_max_fds', 'gauge', 'Maximum number of open file descriptors')
      out.sample('process_max_fds', '', fds.max)
    }
  }
  out.family(
    'vigil_database_size_bytes',
    'gauge',
    "Size of the database: the SQLite file (pages in use and free) with the sealed blocks' and the newest samples' files beside it, or PostgreSQL's pg_database_size",
  )
  out.sample('vigil_database_size_bytes', '', databaseBytes)
  if (walBytes !== null) {
    out.family(
      'vigil_database_wal_size_bytes',
      'gauge',
      "Size of SQLite's write-ahead log file (writes not yet copied into the database, and space kept for reuse)",
    )
    out.sample('vigil_database_wal_size_bytes', '', walBytes)
  }
  let family = ''
  for (const g of gauges) {
    if (g.name !== family) out.family((family = g.name), 'gauge', g.help)
    out.sample(g.name, labelText(g.labels ?? []), g.value)
  }
  deps.registry.write(out)
}
