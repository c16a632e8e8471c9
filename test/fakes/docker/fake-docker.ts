import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENGINES, type EngineName, type EngineProfile, type FakeContainer, inspectBody, listEntry, statsBody, versionBody } from './engine-shapes'

export { ENGINES, type EngineName, type EngineProfile, type FakeContainer } from './engine-shapes'

export interface FakeDockerOptions {
  /** which engine answers: a profile of ENGINES or one of your own; docker-27 by default */
  version?: EngineName | EngineProfile
  containers?: FakeContainer[]
  /** where the socket goes; a fresh temp dir by default */
  socketPath?: string
}

export interface FakeDocker {
  /** the unix socket to point DOCKER_HOST at (unix://<socketPath>) */
  socketPath: string
  /** changes a container as the engine would see it (running → exited, restart count rising…) */
  set(id: string, patch: Partial<FakeContainer>): void
  remove(id: string): void
  add(c: FakeContainer): void
  /** while true, every request is held unanswered (a hung engine) */
  hang(on: boolean): void
  /** paths requested so far, with their query, in order */
  calls: string[]
  stop(): Promise<void>
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'api-version': '1.47', server: 'Docker/fake (linux)' } })

const notFound = (what: string) => json({ message: `No such container: ${what}` }, 404)

/**
 * A Docker (or Podman) engine on a unix socket, answering the read-only endpoints the collector
 * uses from an in-memory list of containers that a test changes as it goes. Paths may carry the
 * API version prefix (/v1.47/containers/json) as real clients send them.
 *
 *   const engine = startFakeDocker({ version: 'docker-27', containers: sampleContainers() })
 *   // a real collector: vigil agent … with DOCKER_HOST=unix://${engine.socketPath}
 *   engine.set(containerId('a1'), { state: 'exited', exitCode: 1, finishedAt: new Date().toISOString() })
 *   engine.set(containerId('e5'), { restartCount: 8 })   // restarting, its count rising
 *   await engine.stop()
 *
 * Serve it from a process whose event loop is free (not one blocked in Bun.spawnSync).
 */
export function startFakeDocker(opts: FakeDockerOptions = {}): FakeDocker {
  const profile: EngineProfile = typeof opts.version === 'object' ? opts.version : ENGINES[opts.version ?? 'docker-27']
  const containers = new Map<string, FakeContainer>((opts.containers ?? []).map((c) => [c.id, { ...c }]))
  const ownDir = opts.socketPath ? null : mkdtempSync(join(tmpdir(), 'vigil-fake-docker-'))
  const socketPath = opts.socketPath ?? join(ownDir!, 'docker.sock')
  const calls: string[] = []
  let hung = false
  const held = new Set<() => void>()

  const find = (ref: string) => containers.get(ref) ?? [...containers.values()].find((c) => c.id.startsWith(ref) || c.name === ref)

  function answer(url: URL, method: string): Response {
    const path = url.pathname.replace(/^\/v\d+\.\d+/, '')
    if (method !== 'GET' && method !== 'HEAD') return json({ message: 'the fake engine is read-only' }, 405)
    if (path === '/_ping') return new Response('OK')
    if (path === '/version') return json(versionBody(profile))
    if (path === '/containers/json') {
      const all = url.searchParams.get('all') === '1' || url.searchParams.get('all') === 'true'
      return json([...containers.values()].filter((c) => all || (c.state ?? 'running') === 'running').map((c) => listEntry(c, profile)))
    }
    const m = /^\/containers\/([^/]+)\/(json|stats)$/.exec(path)
    if (!m) return json({ message: `page not found: ${path}` }, 404)
    const c = find(decodeURIComponent(m[1]!))
    if (!c) return notFound(m[1]!)
    if (m[2] === 'json') return json(inspectBody(c))
    return json(statsBody(c, profile, new Date()))
  }

  const server = Bun.serve({
    unix: socketPath,
    fetch(req) {
      const url = new URL(req.url)
      calls.push(url.pathname.replace(/^\/v\d+\.\d+/, '') + url.search)
      const stats = /\/containers\/([^/]+)\/stats$/.exec(url.pathname)
      const holdStats = stats ? find(decodeURIComponent(stats[1]!))?.hangStats === true : false
      if (!hung && !holdStats) return answer(url, req.method)
      // held until hang(false) or stop(): a socket that accepts and never answers
      return new Promise<Response>((resolve) => {
        const release = () => {
          held.delete(release)
          resolve(answer(url, req.method))
        }
        held.add(release)
      })
    },
  })

  return {
    socketPath,
    calls,
    set(id, patch) {
      const c = containers.get(id)
      if (!c) throw new Error(`fake docker: no container ${id}`)
      containers.set(id, { ...c, ...patch })
    },
    remove: (id) => void containers.delete(id),
    add: (c) => void containers.set(c.id, { ...c }),
    hang(on) {
      hung = on
      if (!on) for (const release of [...held]) release()
    },
    async stop() {
      for (const release of [...held]) release()
      await server.stop(true)
      if (ownDir) rmSync(ownDir, { recursive: true, force: true })
    },
  }
}

/** A 64-hex container id made from a short tag, so tests read well and ids stay unique. */
export const containerId = (tag: string) => (tag + '0'.repeat(64)).slice(0, 64).replace(/[^0-9a-f]/g, 'f')

/**
 * A host with one container of each kind the collector must tell apart: running and healthy,
 * stopped cleanly, exited non-zero, unhealthy, restarting (its count rising), OOM-killed.
 */
export function sampleContainers(): FakeContainer[] {
  return [
    {
      id: containerId('a1'),
      name: 'web',
      image: 'nginx:1.27',
      labels: { 'com.docker.compose.service': 'web', team: 'ops' },
      health: 'healthy',
      cpuNs: 1e9,
      systemNs: 1e12,
    },
    { id: containerId('b2'), name: 'backup', image: 'restic/restic:0.17', state: 'exited', exitCode: 0, finishedAt: '2026-11-27T03:00:00Z' },
    { id: containerId('c3'), name: 'worker', image: 'app/worker:2', state: 'exited', exitCode: 2, finishedAt: '2026-11-27T04:30:00Z' },
    { id: containerId('d4'), name: 'api', image: 'app/api:5', health: 'unhealthy', cpuNs: 2e9, systemNs: 1e12 },
    { id: containerId('e5'), name: 'flaky', image: 'app/flaky:1', state: 'restarting', exitCode: 1, restartCount: 7 },
    { id: containerId('f6'), name: 'hog', image: 'app/hog:1', state: 'exited', exitCode: 137, oomKilled: true, finishedAt: '2026-11-27T04:50:00Z' },
  ]
}
