import type { Logger } from '../../../lib/logger'
import { readMeminfo } from '../memory'
import { cgroupDir, readingFromCgroup } from './containers.cgroup'
import {
  apiAtLeast,
  type EngineGet,
  engineOf,
  findSocket,
  permissionReason,
  socketCandidates,
  socketGet,
  type SocketProbe,
  systemSocketProbe,
} from './containers.engine'
import { figuresOf, NO_FIGURES, readingFromStats, type Figures, type Reading } from './containers.figures'
import { EXCLUDE_LABEL, globMatcher, type Inspected, type ListedContainer, parseInspect, parseList, pickLabels } from './containers.parse'
import { BOUNDS, type ContainerItem, type ContainersBlock, type EngineInfo } from './containers.wire'

export interface ContainersPollerDeps {
  env: Record<string, string | undefined>
  /** filesystem root for the cgroup and /proc files: '/' in production */
  root: string
  log: Logger
  /** monotonic ms */
  now: () => number
  probe?: SocketProbe
  connect?: (socketPath: string) => EngineGet
  /** globs on container names never reported */
  exclude?: string[]
  /** label names (or globs) sent with each container; none by default */
  labels?: string[]
  /** engine calls in flight at once */
  concurrency?: number
  /** each call's limit */
  timeoutMs?: number
  /** a block older than this is not sent (the engine has stopped answering) */
  staleAfterMs?: number
  /** how often a missing engine is looked for again */
  rediscoverMs?: number
  /** how often "no engine" is sent while there is none */
  unavailableEveryMs?: number
  /** where the figures of a running container come from: its cgroup files when present (cheaper), else /stats */
  source?: 'auto' | 'api'
}

interface Engine {
  get: EngineGet
  info: EngineInfo
  socketPath: string
}

/** Runs `fn` over `items`, at most `limit` at once. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}

/** every container is inspected again at least this often, whatever its list row says */
const REINSPECT_MS = 5 * 60_000

const errorCode = (err: unknown) => (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.name ?? 'error'

/**
 * The containers of this machine, read from the Docker or Podman engine beside sampling: a
 * sample takes the last complete block (`latest()`) and starts the next refresh, so a slow or
 * hung engine never delays a sample; its calls are bounded (a few at once, each with a time
 * limit), and a block gone stale is no longer sent. Only GET requests, only these endpoints:
 * /version, /containers/json?all=1, /containers/{id}/json (for containers whose state or status
 * changed), /containers/{id}/stats?stream=false&one-shot=true (running ones without cgroup files).
 */
export function createContainersPoller(deps: ContainersPollerDeps) {
  const { log, now } = deps
  const probe = deps.probe ?? systemSocketProbe
  const connect = deps.connect ?? socketGet
  const concurrency = deps.concurrency ?? 4
  const timeoutMs = deps.timeoutMs ?? 5_000
  const staleAfterMs = deps.staleAfterMs ?? 60_000
  const rediscoverMs = deps.rediscoverMs ?? 60_000
  const unavailableEveryMs = deps.unavailableEveryMs ?? 3_600_000
  const isExcluded = globMatcher(deps.exclude ?? [])
  const wantLabel = globMatcher(deps.labels ?? [])

  let engine: Engine | null = null
  let unavailable: { reason: string; sentAt: number | null } | null = null
  let lookedAt = Number.NEGATIVE_INFINITY
  let block: { value: ContainersBlock; at: number } | null = null
  let running: Promise<void> | null = null
  const inspected = new Map<string, { key: string; info: Inspected; at: number }>()
  const readings = new Map<string, Reading>()
  /** each running container's cgroup directory, or null for the engine's stats */
  const dirs = new Map<string, string | null>()
  const said = new Set<string>()
  /** logs a line once per process (or once per `key`), for conditions that last */
  const once = (key: string, level: 'info' | 'warn', msg: string, fields?: Record<string, unknown>) => {
    if (said.has(key)) return
    said.add(key)
    log[level](msg, fields)
  }

  async function discover(): Promise<boolean> {
    lookedAt = now()
    const user = deps.env.USER?.replace(/[^\w.-]/g, '').slice(0, 32) || undefined
    const found = findSocket(socketCandidates(deps.env), probe, user)
    if ('reason' in found) return markUnavailable(found.reason, found.denied)
    const get = connect(found.path)
    try {
      const v = await get('/version', timeoutMs)
      const info = v.status === 200 ? engineOf(v.body) : null
      if (!info) return markUnavailable(`the engine at ${found.path} did not answer GET /version (status ${v.status})`, false)
      engine = { get, info, socketPath: found.path }
      unavailable = null
      said.delete('no-engine')
      log.info('agent: reading containers', { engine: info.kind, version: info.version, api: info.api_version, socket: found.path })
      return true
    } catch (err) {
      const code = errorCode(err)
      if (code === 'EACCES' || code === 'EPERM') return markUnavailable(permissionReason(found.path, user), true)
      return markUnavailable(`the engine at ${found.path} did not answer (${code})`, false)
    }
  }

  function markUnavailable(reason: string, denied: boolean): false {
    const bounded = reason.slice(0, BOUNDS.reason)
    if (unavailable?.reason !== bounded) unavailable = { reason: bounded, sentAt: null }
    if (denied) once(`denied:${bounded}`, 'warn', `agent: containers not read: ${bounded}`)
    else once('no-engine', 'info', `agent: containers not read: ${bounded}`)
    return false
  }

  /** The figures of one running container: cgroup files when the host has them for it, else the engine's /stats. */
  async function measure(e: Engine, c: ListedContainer, pid: number | null, deadline: number): Promise<Figures> {
    const prev = readings.get(c.id) ?? null
    let cur: Reading | null = null
    // where its figures come from is decided once per container
    if (!dirs.has(c.id)) dirs.set(c.id, deps.source === 'api' || e.info.kind === 'cgroup' ? null : cgroupDir(deps.root, e.info.kind, c.id))
    const dir = dirs.get(c.id)!
    if (dir) {
      cur = readingFromCgroup(deps.root, dir, pid, now(), memTotal())
    } else if (now() >= deadline) {
      // the read has taken long enough (stats that hang): the rest go without figures this time
      return NO_FIGURES
    } else {
      // one-shot answers at once instead of after the engine's own second reading (API 1.41+);
      // the CPU share comes from this collector's two readings either way
      const oneShot = apiAtLeast(e.info.api_version, '1.41') ? '&one-shot=true' : ''
      try {
        const r = await e.get(`/containers/${c.id}/stats?stream=false${oneShot}`, timeoutMs)
        if (r.status === 200) cur = readingFromStats(r.body, now())
      } catch (err) {
        log.debug('agent: container stats not read', { id: c.id.slice(0, 12), error: errorCode(err) })
      }
    }
    if (!cur) return NO_FIGURES
    readings.set(c.id, cur)
    // Podman's system_cpu_usage is the container's cgroup's, and cgroup files have none: both use wall time
    return figuresOf(prev, cur, dir || e.info.kind === 'podman' ? 'wall' : 'system')
  }

  let memTotalBytes: number | null | undefined
  const memTotal = () => (memTotalBytes ??= readMeminfo(deps.root).get('MemTotal') ?? null)

  async function refresh(): Promise<void> {
    if (!engine && (now() - lookedAt < rediscoverMs || !(await discover()))) return
    const e = engine!
    // one read, its calls a few at once, ends within about two calls' limits even if each hangs
    const deadline = now() + 2 * timeoutMs
    try {
      const list = await e.get('/containers/json?all=1', timeoutMs)
      if (list.status !== 200) throw Object.assign(new Error(`status ${list.status}`), { code: `HTTP ${list.status}` })
      const shown = parseList(list.body)
        .filter((c) => !isExcluded(c.name) && c.labels[EXCLUDE_LABEL] !== 'true')
        .slice(0, BOUNDS.items)
      const ids = new Set(shown.map((c) => c.id))
      for (const id of inspected.keys()) if (!ids.has(id)) inspected.delete(id)
      // a container that stops loses its last reading: counters start again with it
      const up = new Set(shown.filter((c) => c.state === 'running').map((c) => c.id))
      for (const id of readings.keys()) if (!up.has(id)) readings.delete(id)
      for (const id of dirs.keys()) if (!up.has(id)) dirs.delete(id)
      // a restarting container's count can rise while its list row reads the same, and a restart
      // between two reads can leave the row alike too: those are looked at every read, all once in a while
      const t = now()
      const changed = shown.filter((c) => {
        const seen = inspected.get(c.id)
        return !seen || seen.key !== c.key || c.state === 'restarting' || t - seen.at >= REINSPECT_MS
      })
      await eachLimited(changed, concurrency, async (c) => {
        try {
          const r = await e.get(`/containers/${c.id}/json`, timeoutMs)
          if (r.status === 200) inspected.set(c.id, { key: c.key, info: parseInspect(r.body), at: t })
        } catch (err) {
          log.debug('agent: container not inspected', { id: c.id.slice(0, 12), error: errorCode(err) })
        }
      })
      const figures = new Map<string, Figures>()
      await eachLimited(
        shown.filter((c) => c.state === 'running'),
        concurrency,
        async (c) => void figures.set(c.id, await measure(e, c, inspected.get(c.id)?.info.pid ?? null, deadline)),
      )
      const items = shown.map((c) => itemOf(c, inspected.get(c.id)?.info ?? null, figures.get(c.id) ?? NO_FIGURES, wantLabel))
      // a running container whose memory reads null has no cgroup memory accounting to read from
      const accounting = !shown.some((c) => c.state === 'running' && figures.has(c.id) && figures.get(c.id)!.memory_used_bytes === null)
      if (!accounting)
        once(
          'memory-accounting',
          'info',
          'agent: the kernel has no cgroup memory accounting, so container memory is not reported (Raspberry Pi OS: add cgroup_enable=memory cgroup_memory=1 to the kernel command line and reboot)',
        )
      block = { value: { engine: e.info, unavailable_reason: null, memory_accounting: accounting, items }, at: now() }
      said.delete('engine-failing')
    } catch (err) {
      const code = errorCode(err)
      once('engine-failing', 'warn', 'agent: the container engine did not answer; containers are left out until it does', { socket: e.socketPath, error: code })
      // the socket went away (engine stopped or removed): look for one again next time
      if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EACCES') {
        engine = null
        lookedAt = Number.NEGATIVE_INFINITY
      }
    }
  }

  const start = () => {
    if (!running) running = refresh().finally(() => (running = null))
  }

  return {
    /** starts a refresh, so that the first sample has the containers */
    prime: start,
    /**
     * The block for the sample being taken, and the next refresh started in the background:
     * the last complete block while it is fresh; with no engine, a block saying why, once an
     * hour; else nothing (the key is left out of the sample).
     */
    latest(): ContainersBlock | undefined {
      start()
      const t = now()
      if (block && t - block.at <= staleAfterMs) return block.value
      if (!engine && unavailable && (unavailable.sentAt === null || t - unavailable.sentAt >= unavailableEveryMs)) {
        unavailable.sentAt = t
        return { engine: null, unavailable_reason: unavailable.reason, memory_accounting: true, items: [] }
      }
      return undefined
    },
    /** resolves when the refresh in flight (if any) is done (tests, --once) */
    settled: (): Promise<void> => running ?? Promise.resolve(),
  }
}

export type ContainersPoller = ReturnType<typeof createContainersPoller>

function itemOf(c: ListedContainer, info: Inspected | null, f: Figures, wantLabel: (k: string) => boolean): ContainerItem {
  return {
    id: c.id.slice(0, BOUNDS.id),
    name: c.name.slice(0, BOUNDS.name),
    image: c.image.slice(0, BOUNDS.image),
    labels: pickLabels(c.labels, wantLabel),
    // the list is newer than an inspection that failed this round
    state: info && info.state === c.state ? info.state : c.state,
    health: info?.health ?? 'none',
    exit_code: info?.exit_code ?? null,
    oom_killed: info?.oom_killed ?? false,
    restart_count: info?.restart_count ?? 0,
    started_at: info?.started_at ?? null,
    finished_at: info?.finished_at ?? null,
    ...f,
  }
}
