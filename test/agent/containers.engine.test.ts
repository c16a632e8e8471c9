import { afterEach, describe, expect, test } from 'bun:test'
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { memoryLogger } from '../../src/lib/logger'
import { findSocket, socketCandidates, systemSocketProbe } from '../../src/agent/readers/containers/containers.engine'
import { createContainersPoller } from '../../src/agent/readers/containers/containers.poller'
import { containerId, type FakeDocker, startFakeDocker } from '../fakes/docker/fake-docker'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-containers-')
const fakes: FakeDocker[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.stop()
})

const noSockets = { isSocket: () => false, canConnect: () => true }

describe('finding the engine', () => {
  test('DOCKER_HOST first (unix:// only), then Docker, rootful Podman and rootless Podman', () => {
    expect(socketCandidates({ DOCKER_HOST: 'unix:///srv/d.sock', XDG_RUNTIME_DIR: '/run/user/1000' }).paths).toEqual([
      '/srv/d.sock',
      '/var/run/docker.sock',
      '/run/podman/podman.sock',
      '/run/user/1000/podman/podman.sock',
    ])
    const tcp = socketCandidates({ DOCKER_HOST: 'tcp://10.0.0.5:2376' })
    expect(tcp.paths).toEqual(['/var/run/docker.sock', '/run/podman/podman.sock'])
    expect(findSocket(tcp, noSockets)).toEqual({
      reason:
        'no Docker or Podman socket found (looked at /var/run/docker.sock, /run/podman/podman.sock); DOCKER_HOST=tcp://10.0.0.5:2376 ignored: only unix:// sockets are read',
      denied: false,
    })
  })

  test('no socket: said once at info, sent once with the reason, then left out of samples until an hour has passed', async () => {
    let t = 0
    const { logger, lines } = memoryLogger()
    const p = createContainersPoller({ env: {}, root: '/nonexistent-root', log: logger, now: () => t, probe: noSockets })
    const first = p.latest()
    await p.settled()
    expect(first).toEqual({
      engine: null,
      unavailable_reason: 'no Docker or Podman socket found (looked at /var/run/docker.sock, /run/podman/podman.sock)',
      memory_accounting: true,
      items: [],
    })
    for (let i = 0; i < 20; i++) {
      t += 10_000
      expect(p.latest()).toBeUndefined()
      await p.settled()
    }
    t = 3_600_000
    expect(p.latest()?.unavailable_reason).toStartWith('no Docker or Podman socket found')
    await p.settled()
    const said = lines.filter((l) => l.includes('containers not read'))
    expect(said).toHaveLength(1)
    expect(JSON.parse(said[0]!).level).toBe('info')
  })

  test('permission denied on the socket: the reason says what to do, as a warning, once', async () => {
    const { logger, lines } = memoryLogger()
    const p = createContainersPoller({
      env: {},
      root: '/',
      log: logger,
      now: () => 0,
      probe: { isSocket: (s) => s === '/var/run/docker.sock', canConnect: () => false },
    })
    const b = p.latest()
    await p.settled()
    expect(b?.unavailable_reason).toStartWith(
      'permission denied on /var/run/docker.sock: add the vigil-agent user to the docker group (sudo usermod -aG docker vigil-agent',
    )
    p.latest()
    await p.settled()
    const said = lines.filter((l) => l.includes('permission denied'))
    expect(said).toHaveLength(1)
    expect(JSON.parse(said[0]!).level).toBe('warn')
    // the user the agent runs as, when the environment says
    const other = createContainersPoller({
      env: { USER: 'monitor' },
      root: '/',
      log: memoryLogger().logger,
      now: () => 0,
      probe: { isSocket: (s) => s === '/var/run/docker.sock', canConnect: () => false },
    })
    expect(other.latest()?.unavailable_reason).toStartWith(
      'permission denied on /var/run/docker.sock: add the monitor user to the docker group (sudo usermod -aG docker monitor',
    )
    await other.settled()
  })

  test('an engine that appears later is found at the next look (a minute on)', async () => {
    let t = 0
    const dir = tempDir()
    const socketPath = join(dir, 'docker.sock')
    // only the DOCKER_HOST socket counts, whatever engine this machine runs
    const probe = { isSocket: (s: string) => s === socketPath && systemSocketProbe.isSocket(s), canConnect: () => true }
    const p = createContainersPoller({
      env: { DOCKER_HOST: `unix://${socketPath}` },
      root: '/nonexistent-root',
      log: memoryLogger().logger,
      now: () => t,
      probe,
    })
    p.latest()
    await p.settled()
    fakes.push(startFakeDocker({ socketPath, containers: [{ id: containerId('a1'), name: 'web' }] }))
    t += 10_000
    p.latest()
    await p.settled()
    expect(p.latest()).toBeUndefined()
    await p.settled()
    t += 60_000
    p.latest()
    await p.settled()
    expect(p.latest()?.items.map((i) => i.name)).toEqual(['web'])
  })
})

describe('cgroup v2 files', () => {
  /** a host root with Docker's systemd-driver cgroup for one container and its first process's network counters */
  function hostRoot(id: string, c: { usec: number; current: string | null; inactive: number; max: string; rbytes: number; rx: number }) {
    const root = tempDir()
    const dir = join(root, `sys/fs/cgroup/system.slice/docker-${id}.scope`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'cpu.stat'), `usage_usec ${c.usec}\nuser_usec ${c.usec}\nsystem_usec 0\n`)
    if (c.current !== null) writeFileSync(join(dir, 'memory.current'), `${c.current}\n`)
    writeFileSync(join(dir, 'memory.stat'), `anon 1000\nfile 5000\ninactive_file ${c.inactive}\n`)
    writeFileSync(join(dir, 'memory.max'), `${c.max}\n`)
    writeFileSync(join(dir, 'io.stat'), `8:0 rbytes=${c.rbytes} wbytes=4096 rios=3 wios=1 dbytes=0 dios=0\n`)
    writeFileSync(join(dir, 'pids.current'), '4\n')
    mkdirSync(join(root, 'proc/4242/net'), { recursive: true })
    writeFileSync(
      join(root, 'proc/4242/net/dev'),
      `Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    lo: 999 1 0 0 0 0 0 0 999 1 0 0 0 0 0 0\n  eth0: ${c.rx} 10 0 0 0 0 0 0 700 7 0 0 0 0 0 0\n`,
    )
    mkdirSync(join(root, 'proc'), { recursive: true })
    writeFileSync(join(root, 'proc/meminfo'), 'MemTotal:        8000000 kB\n')
    return root
  }

  test('where the host has the container’s cgroup, its figures come from the files instead of /stats', async () => {
    const id = containerId('a1')
    const f = startFakeDocker({ containers: [{ id, name: 'web', pid: 4242 }] })
    fakes.push(f)
    const root = hostRoot(id, { usec: 1_000_000, current: '300000000', inactive: 100_000_000, max: 'max', rbytes: 0, rx: 1000 })
    let t = 0
    const p = createContainersPoller({ env: { DOCKER_HOST: `unix://${f.socketPath}` }, root, log: memoryLogger().logger, now: () => t })
    p.latest()
    await p.settled()
    const first = p.latest()!.items[0]!
    // an unlimited memory.max reads as the host's memory, as docker stats shows it
    expect(first).toMatchObject({ memory_used_bytes: 200_000_000, memory_limit_bytes: 8_000_000 * 1024, pids: 4, cpu_percent: null })
    writeFileSync(join(root, `sys/fs/cgroup/system.slice/docker-${id}.scope/cpu.stat`), 'usage_usec 3500000\n')
    writeFileSync(join(root, `sys/fs/cgroup/system.slice/docker-${id}.scope/io.stat`), '8:0 rbytes=50000 wbytes=4096\n')
    writeFileSync(join(root, 'proc/4242/net/dev'), 'h\nh\n    lo: 5000 1 0 0 0 0 0 0 5000 1 0 0 0 0 0 0\n  eth0: 11000 10 0 0 0 0 0 0 700 7 0 0 0 0 0 0\n')
    t += 10_000
    p.latest()
    await p.settled()
    // 2.5 s of CPU in 10 s; loopback is not network traffic
    expect(p.latest()!.items[0]).toMatchObject({ cpu_percent: 25, block_read_bytes_per_sec: 5000, net_rx_bytes_per_sec: 1000, net_tx_bytes_per_sec: 0 })
    expect(f.calls.some((c) => c.includes('/stats'))).toBe(false)
  })

  test('Docker’s cgroupfs driver on cgroup v2 (docker/<id>) is read as well', async () => {
    const id = containerId('a1')
    const f = startFakeDocker({ containers: [{ id, name: 'web', pid: 4242 }] })
    fakes.push(f)
    const root = hostRoot(id, { usec: 1, current: '1000', inactive: 0, max: '5000', rbytes: 0, rx: 0 })
    mkdirSync(join(root, 'sys/fs/cgroup/docker'), { recursive: true })
    renameSync(join(root, `sys/fs/cgroup/system.slice/docker-${id}.scope`), join(root, `sys/fs/cgroup/docker/${id}`))
    const p = createContainersPoller({ env: { DOCKER_HOST: `unix://${f.socketPath}` }, root, log: memoryLogger().logger, now: () => 0 })
    p.latest()
    await p.settled()
    expect(p.latest()!.items[0]).toMatchObject({ memory_used_bytes: 1000, memory_limit_bytes: 5000 })
    expect(f.calls.some((c) => c.includes('/stats'))).toBe(false)
  })

  test('a cgroup without memory.current (no memory controller) reads null and turns memory_accounting off', async () => {
    const id = containerId('a1')
    const f = startFakeDocker({ containers: [{ id, name: 'pi', pid: 4242 }] })
    fakes.push(f)
    const root = hostRoot(id, { usec: 1, current: null, inactive: 0, max: 'max', rbytes: 0, rx: 0 })
    const p = createContainersPoller({ env: { DOCKER_HOST: `unix://${f.socketPath}` }, root, log: memoryLogger().logger, now: () => 0 })
    p.latest()
    await p.settled()
    const b = p.latest()!
    expect(b.memory_accounting).toBe(false)
    expect(b.items[0]).toMatchObject({ memory_used_bytes: null, memory_limit_bytes: null })
  })
})

/** A Docker or Podman engine on this machine, if any (CI machines mostly have none). */
const realEngine = findSocket(socketCandidates(process.env), systemSocketProbe)
const noRealEngine = 'reason' in realEngine ? realEngine.reason : null

test.skipIf(noRealEngine !== null)(
  `against the real engine on this machine${noRealEngine ? ` (skipped: ${noRealEngine})` : ''}`,
  async () => {
    const { logger } = memoryLogger()
    let t = 0
    const p = createContainersPoller({ env: process.env, root: '/', log: logger, now: () => t })
    p.latest()
    await p.settled()
    t += 10_000
    p.latest()
    await p.settled()
    const b = p.latest()!
    expect(['docker', 'podman']).toContain(b.engine!.kind)
    expect(b.engine!.version).not.toBe('')
    for (const i of b.items) {
      expect(i.id).toMatch(/^[0-9a-f]{64}$/)
      expect(['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead']).toContain(i.state)
      if (i.state === 'running') expect(i.pids).toBeGreaterThan(0)
      else expect(i.cpu_percent).toBeNull()
    }
  },
  30_000,
)
