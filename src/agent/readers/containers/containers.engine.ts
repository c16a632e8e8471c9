import { accessSync, constants, statSync } from 'node:fs'
import { join } from 'node:path'
import { BOUNDS, type EngineInfo } from './containers.wire'

/** One GET to the engine: its status and parsed JSON body; throws on no answer (with the error's code). */
export type EngineGet = (path: string, timeoutMs: number) => Promise<{ status: number; body: unknown }>

/** GETs over the engine's unix socket. Only GET: the collector never writes to the engine. */
export function socketGet(socketPath: string): EngineGet {
  return async (path, timeoutMs) => {
    const res = await fetch(`http://engine${path}`, { unix: socketPath, signal: AbortSignal.timeout(timeoutMs) } as RequestInit)
    // an answer that is not JSON (a proxy's error page) reads as null: callers check the status and shape
    const body: unknown = await res.json().catch(() => null)
    return { status: res.status, body }
  }
}

/**
 * Where the engine may listen, in the order tried: DOCKER_HOST (unix:// only: a TCP engine
 * would need TLS credentials the collector does not hold), Docker's socket, rootful Podman's,
 * then rootless Podman's under $XDG_RUNTIME_DIR.
 */
export function socketCandidates(env: Record<string, string | undefined>): { paths: string[]; ignored: string | null } {
  const paths: string[] = []
  let ignored: string | null = null
  const host = env.DOCKER_HOST?.trim()
  if (host) {
    if (host.startsWith('unix://')) paths.push(host.slice('unix://'.length))
    else ignored = `DOCKER_HOST=${host.slice(0, 100)} ignored: only unix:// sockets are read`
  }
  paths.push('/var/run/docker.sock', '/run/podman/podman.sock')
  if (env.XDG_RUNTIME_DIR) paths.push(join(env.XDG_RUNTIME_DIR, 'podman/podman.sock'))
  return { paths: [...new Set(paths)], ignored }
}

export interface SocketProbe {
  isSocket(path: string): boolean
  /** whether this process may connect (write permission on the socket) */
  canConnect(path: string): boolean
}

export const systemSocketProbe: SocketProbe = {
  isSocket(path) {
    try {
      return statSync(path).isSocket()
    } catch {
      return false
    }
  },
  canConnect(path) {
    try {
      accessSync(path, constants.R_OK | constants.W_OK)
      return true
    } catch {
      return false
    }
  },
}

/**
 * What to tell the user when the socket is there but closed to this user: the user the agent
 * runs as (systemd sets USER for a unit's User=), vigil-agent as the installer names it otherwise.
 */
export const permissionReason = (path: string, user = 'vigil-agent') =>
  `permission denied on ${path}: add the ${user} user to the docker group (sudo usermod -aG docker ${user}, then restart the agent) or run the agent as a user that may read the socket`

/** The first socket present, or why there is none (bounded as the wire bounds it). */
export function findSocket(
  candidates: { paths: string[]; ignored: string | null },
  probe: SocketProbe,
  user?: string,
): { path: string } | { reason: string; denied: boolean } {
  for (const path of candidates.paths) {
    if (!probe.isSocket(path)) continue
    if (!probe.canConnect(path)) return { reason: permissionReason(path, user).slice(0, BOUNDS.reason), denied: true }
    return { path }
  }
  const why = `no Docker or Podman socket found (looked at ${candidates.paths.join(', ')})${candidates.ignored ? `; ${candidates.ignored}` : ''}`
  return { reason: why.slice(0, BOUNDS.reason), denied: false }
}

/** The engine from GET /version: Podman names its component "Podman Engine". */
export function engineOf(body: unknown): EngineInfo | null {
  if (!body || typeof body !== 'object') return null
  const v = body as { Version?: unknown; ApiVersion?: unknown; Components?: { Name?: unknown }[] }
  if (typeof v.Version !== 'string') return null
  const podman = Array.isArray(v.Components) && v.Components.some((c) => c?.Name === 'Podman Engine')
  return {
    kind: podman ? 'podman' : 'docker',
    version: v.Version.slice(0, BOUNDS.version),
    api_version: typeof v.ApiVersion === 'string' ? v.ApiVersion.slice(0, BOUNDS.apiVersion) : null,
  }
}

/** API versions compare as numbers per part: 1.41 < 1.47 < 1.100. */
export function apiAtLeast(api: string | null, want: string): boolean {
  if (!api) return false
  const [a1 = 0, a2 = 0] = api.split('.').map(Number)
  const [w1 = 0, w2 = 0] = want.split('.').map(Number)
  return a1 > w1 || (a1 === w1 && a2 >= w2)
}
