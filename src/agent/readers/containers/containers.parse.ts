import { BOUNDS, type ContainerHealth, type ContainerStateName } from './containers.wire'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {})
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

/** One row of GET /containers/json: enough to decide whether to look closer. */
export interface ListedContainer {
  id: string
  name: string
  image: string
  labels: Record<string, string>
  state: ContainerStateName
  /** changes when anything inspect would tell changes: state, health, exit code, a restart (the uptime starts again) */
  key: string
}

const STATES = new Set<ContainerStateName>(['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead'])

/** The engine's state in the wire's words; Podman has a few of its own. */
export function stateName(s: unknown): ContainerStateName {
  const v = String(s ?? '').toLowerCase()
  if (STATES.has(v as ContainerStateName)) return v as ContainerStateName
  if (v === 'stopped' || v === 'stopping') return 'exited'
  if (v === 'configured' || v === 'initialized') return 'created'
  return 'dead'
}

const labelsOf = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, val] of Object.entries(obj(v))) if (typeof val === 'string') out[k] = val
  return out
}

export function parseList(body: unknown): ListedContainer[] {
  if (!Array.isArray(body)) return []
  const out: ListedContainer[] = []
  for (const row of body) {
    const r = obj(row)
    const id = str(r.Id)
    if (!id) continue
    const names = Array.isArray(r.Names) ? r.Names : []
    const state = stateName(r.State)
    out.push({
      id,
      // the hub needs a name: an engine that gives none (or only "/") is named by the short id
      name: (str(names[0]) ?? '').replace(/^\//, '') || id.slice(0, 12),
      image: str(r.Image) ?? '',
      labels: labelsOf(r.Labels),
      state,
      key: `${state}|${str(r.Status) ?? ''}`,
    })
  }
  return out
}

/** What GET /containers/{id}/json tells beyond the list. */
export interface Inspected {
  state: ContainerStateName
  health: ContainerHealth
  exit_code: number | null
  oom_killed: boolean
  restart_count: number
  started_at: string | null
  finished_at: string | null
  /** the first process on the host, for its network counters */
  pid: number | null
}

/**
 * An ISO 8601 time, to the millisecond, from the engine's RFC 3339 (Docker writes nanoseconds,
 * Podman an offset); Docker's "never" is year 1, and what does not read as a time is null.
 */
const time = (v: unknown): string | null => {
  const s = str(v)
  if (!s || s.startsWith('0001-01-01')) return null
  const ms = Date.parse(s.replace(/(\.\d{3})\d+/, '$1'))
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null
}

const HEALTH = new Set(['healthy', 'unhealthy', 'starting'])

export function parseInspect(body: unknown): Inspected {
  const b = obj(body)
  const s = obj(b.State)
  const state = stateName(s.Status)
  const health = str(obj(s.Health).Status)
  const exit = typeof s.ExitCode === 'number' && Number.isInteger(s.ExitCode) ? s.ExitCode : null
  const pid = typeof s.Pid === 'number' && s.Pid > 0 ? s.Pid : null
  return {
    state,
    health: health && HEALTH.has(health) ? (health as ContainerHealth) : 'none',
    // a running, paused or new container has not exited: its ExitCode (0) means nothing yet
    exit_code: state === 'running' || state === 'created' || state === 'paused' ? null : exit,
    oom_killed: s.OOMKilled === true,
    restart_count: typeof b.RestartCount === 'number' && b.RestartCount >= 0 ? Math.floor(b.RestartCount) : 0,
    started_at: time(s.StartedAt),
    finished_at: time(s.FinishedAt),
    pid,
  }
}

/** A comma-separated list of globs (`*`, `?`) as one test. */
export function globMatcher(globs: string[]): (s: string) => boolean {
  const res = globs
    .map((g) => g.trim())
    .filter(Boolean)
    .map(
      (g) =>
        new RegExp(
          `^${g
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.')}$`,
        ),
    )
  return (s) => res.some((re) => re.test(s))
}

/** The label that keeps a container out of what the collector sends, whatever its name. */
export const EXCLUDE_LABEL = 'vigil.exclude'

/** The labels the user asked to send (names or globs), within the wire's bounds. */
export function pickLabels(labels: Record<string, string>, wanted: (k: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {}
  let n = 0
  for (const [k, v] of Object.entries(labels)) {
    if (n >= BOUNDS.labels) break
    if (k.length > BOUNDS.labelKey || !wanted(k)) continue
    out[k] = v.slice(0, BOUNDS.labelValue)
    n++
  }
  return out
}
