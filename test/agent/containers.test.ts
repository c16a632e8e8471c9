import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import { createSampler } from '../../src/agent/agent.sample'
import { createContainersPoller, type ContainersPollerDeps } from '../../src/agent/readers/containers/containers.poller'
import { containerId, type FakeDocker, sampleContainers, startFakeDocker, type FakeDockerOptions } from '../fakes/docker/fake-docker'

const FIXTURES = join(import.meta.dir, 'fixtures')
const fakes: FakeDocker[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.stop()
})

function fake(opts: FakeDockerOptions = {}) {
  const f = startFakeDocker({ containers: sampleContainers(), ...opts })
  fakes.push(f)
  return f
}

/** A poller on the fake's socket, on a clock the test moves. */
function poller(f: FakeDocker | null, over: Partial<ContainersPollerDeps> = {}) {
  let t = 1_000_000
  const { logger, lines } = memoryLogger()
  const p = createContainersPoller({
    env: f ? { DOCKER_HOST: `unix://${f.socketPath}` } : {},
    root: '/nonexistent-root',
    log: logger,
    now: () => t,
    timeoutMs: 30_000,
    ...over,
  })
  /** one refresh to its end, then the block it made */
  const next = async () => {
    p.latest()
    await p.settled()
    return p.latest()
  }
  return { p, lines, next, advance: (ms: number) => void (t += ms) }
}

const byName = (block: any, name: string) => block.items.find((i: any) => i.name === name)

describe('containers from the Docker Engine API', () => {
  test('every kind of container is told apart: state, health, exit code, OOM kill, restarts', async () => {
    const f = fake()
    const { next } = poller(f)
    const b = (await next())!
    expect(b.engine).toEqual({ kind: 'docker', version: '27.3.1', api_version: '1.47' })
    expect(b.unavailable_reason).toBeNull()
    expect(b.memory_accounting).toBe(true)
    expect(b.items.map((i) => i.name)).toEqual(['web', 'backup', 'worker', 'api', 'flaky', 'hog'])
    expect(byName(b, 'web')).toMatchObject({ id: containerId('a1'), image: 'nginx:1.27', labels: {}, state: 'running', health: 'healthy', exit_code: null })
    // Docker's nanoseconds as ISO 8601 to the millisecond; "never" (year 1) is null
    expect(byName(b, 'web')).toMatchObject({ started_at: '2026-11-27T04:00:00.000Z', finished_at: null })
    expect(byName(b, 'backup')).toMatchObject({ state: 'exited', exit_code: 0, oom_killed: false, finished_at: '2026-11-27T03:00:00.000Z', cpu_percent: null })
    expect(byName(b, 'worker')).toMatchObject({ state: 'exited', exit_code: 2 })
    expect(byName(b, 'api')).toMatchObject({ state: 'running', health: 'unhealthy' })
    expect(byName(b, 'flaky')).toMatchObject({ state: 'restarting', restart_count: 7, exit_code: 1 })
    expect(byName(b, 'hog')).toMatchObject({ state: 'exited', exit_code: 137, oom_killed: true })
    // the engine only ever sees GETs of the documented read endpoints
    expect(f.calls.every((c) => /^\/(version|containers\/json\?all=1|containers\/[0-9a-f]{64}\/(json|stats\?stream=false&one-shot=true))$/.test(c))).toBe(true)
  })

  test('what the hub would refuse is made safe: an offset or nanosecond time becomes ISO 8601, a time that is none is null, a nameless container takes its short id', async () => {
    const id = containerId('a1')
    const f = fake({ containers: [{ id, name: '', startedAt: '2026-11-27T06:30:00.123456789+01:00', finishedAt: 'not a time' }] })
    const { next } = poller(f)
    expect((await next())!.items[0]).toMatchObject({ name: id.slice(0, 12), started_at: '2026-11-27T05:30:00.123Z', finished_at: null })
  })

  test('CPU as docker stats shows it, memory without the inactive file cache, rates from successive counters', async () => {
    const id = containerId('a1')
    const f = fake({
      containers: [
        {
          id,
          name: 'web',
          cpuNs: 10e9,
          systemNs: 1000e9,
          onlineCpus: 4,
          memoryUsage: 300e6,
          inactiveFile: 100e6,
          memoryLimit: 1e9,
          rxBytes: 0,
          txBytes: 0,
          readBytes: 0,
          writeBytes: 0,
          pids: 9,
        },
      ],
    })
    const { next, advance } = poller(f)
    const first = (await next())!.items[0]!
    // one reading: nothing to compare with yet
    expect(first).toMatchObject({ cpu_percent: null, net_rx_bytes_per_sec: null, memory_used_bytes: 200e6, memory_limit_bytes: 1e9, pids: 9 })
    f.set(id, { cpuNs: 12e9, systemNs: 1040e9, rxBytes: 100_000, txBytes: 50_000, readBytes: 1_000_000, writeBytes: 0 })
    advance(10_000)
    const second = (await next())!.items[0]!
    // (2 s of container CPU / 40 s of host CPU) × 4 CPUs × 100
    expect(second.cpu_percent).toBe(20)
    expect(second).toMatchObject({ net_rx_bytes_per_sec: 10_000, net_tx_bytes_per_sec: 5_000, block_read_bytes_per_sec: 100_000, block_write_bytes_per_sec: 0 })
  })

  test('only containers whose state or status changed are inspected again; gone ones leave the block', async () => {
    const f = fake()
    const { next } = poller(f)
    await next()
    const inspections = () => f.calls.filter((c) => c.endsWith('/json') && c.startsWith('/containers/') && c !== '/containers/json').length
    expect(inspections()).toBe(6)
    await next()
    // only the restarting one: its count can rise while its row reads the same
    expect(inspections()).toBe(7)
    f.set(containerId('e5'), { restartCount: 9 })
    expect(byName(await next(), 'flaky').restart_count).toBe(9)
    expect(inspections()).toBe(8)
    f.set(containerId('a1'), { state: 'exited', exitCode: 143, finishedAt: '2026-11-27T05:00:00Z' })
    f.remove(containerId('b2'))
    const b = (await next())!
    expect(inspections()).toBe(10)
    expect(byName(b, 'web')).toMatchObject({ state: 'exited', exit_code: 143, cpu_percent: null })
    expect(byName(b, 'backup')).toBeUndefined()
  })

  test('every container is inspected again every 5 minutes, so a restart the list row hides is seen', async () => {
    const id = containerId('a1')
    const f = fake({ containers: [{ id, name: 'web', restartCount: 0 }] })
    const { next, advance } = poller(f)
    await next()
    f.set(id, { restartCount: 1, startedAt: '2026-11-27T05:10:00Z' })
    advance(60_000)
    expect((await next())!.items[0]!.restart_count).toBe(0)
    advance(240_000)
    expect((await next())!.items[0]).toMatchObject({ restart_count: 1, started_at: '2026-11-27T05:10:00.000Z' })
  })

  test('a container that stops and starts again starts its rates afresh, never from the reading before it stopped', async () => {
    const id = containerId('a1')
    const f = fake({ containers: [{ id, name: 'web', cpuNs: 10e9, systemNs: 1000e9, rxBytes: 1_000 }] })
    const { next, advance } = poller(f)
    await next()
    f.set(id, { state: 'exited', exitCode: 0 })
    advance(10_000)
    await next()
    f.set(id, { state: 'running', cpuNs: 50e9, systemNs: 1100e9, rxBytes: 900_000, startedAt: '2026-11-27T05:20:00Z' })
    advance(10_000)
    expect((await next())!.items[0]).toMatchObject({ state: 'running', cpu_percent: null, net_rx_bytes_per_sec: null })
  })

  test('before Docker 25 one-shot stats carry no earlier reading: the CPU share comes from two of the collector’s own', async () => {
    const id = containerId('a1')
    const f = fake({ version: 'docker-24', containers: [{ id, name: 'web', cpuNs: 5e9, systemNs: 500e9, onlineCpus: 2 }] })
    const { next, advance } = poller(f)
    expect((await next())!.items[0]!.cpu_percent).toBeNull()
    f.set(id, { cpuNs: 6e9, systemNs: 520e9 })
    advance(10_000)
    expect((await next())!.items[0]!.cpu_percent).toBe(10)
  })

  test('cgroup v1 (Docker 20.10): memory takes total_inactive_file off', async () => {
    const f = fake({ version: 'docker-20', containers: [{ id: containerId('a1'), name: 'web', memoryUsage: 80e6, inactiveFile: 30e6 }] })
    const { next } = poller(f)
    const b = (await next())!
    expect(b.engine).toEqual({ kind: 'docker', version: '20.10.24', api_version: '1.41' })
    expect(b.items[0]!.memory_used_bytes).toBe(50e6)
  })

  test('Podman: recognised by its component; CPU over wall time, since its system counter is the container’s own cgroup', async () => {
    const id = containerId('a1')
    const f = fake({ version: 'podman-4', containers: [{ id, name: 'db', cpuNs: 1e9, systemNs: 1e9, onlineCpus: 4 }] })
    const { next, advance } = poller(f)
    expect((await next())!.engine).toEqual({ kind: 'podman', version: '4.3.1', api_version: '1.41' })
    // 5 s of CPU in 10 s: half a core. Docker's formula on Podman's scoped counter would say 400 %.
    f.set(id, { cpuNs: 6e9, systemNs: 6e9 })
    advance(10_000)
    expect((await next())!.items[0]!.cpu_percent).toBe(50)
  })

  test('without cgroup memory accounting memory is null, never 0, and the log says so once', async () => {
    const f = fake({
      containers: [
        { id: containerId('a1'), name: 'pihole', memoryUsage: null },
        { id: containerId('b2'), name: 'other', memoryUsage: null },
      ],
    })
    const { next, lines } = poller(f)
    const b = (await next())!
    expect(b.memory_accounting).toBe(false)
    expect(b.items.map((i) => [i.memory_used_bytes, i.memory_limit_bytes])).toEqual([
      [null, null],
      [null, null],
    ])
    await next()
    expect(lines.filter((l) => l.includes('no cgroup memory accounting'))).toHaveLength(1)
  })

  test('exclusions by name glob and by the vigil.exclude label; only the configured labels are sent', async () => {
    const f = fake()
    f.set(containerId('d4'), { labels: { 'vigil.exclude': 'true' } })
    const { next } = poller(f, { exclude: ['back*', 'wor?er'], labels: ['team', 'com.docker.compose.*'] })
    const b = (await next())!
    expect(b.items.map((i) => i.name)).toEqual(['web', 'flaky', 'hog'])
    expect(byName(b, 'web').labels).toEqual({ 'com.docker.compose.service': 'web', team: 'ops' })
    // excluded containers are never inspected or measured
    expect(f.calls.some((c) => c.includes(containerId('b2')) || c.includes(containerId('d4')))).toBe(false)
  })

  test('a hung engine never delays a sample: it goes out on time with the last block, then without one once that is stale', async () => {
    const f = fake()
    let t = 0
    const p = createContainersPoller({
      env: { DOCKER_HOST: `unix://${f.socketPath}` },
      root: '/nonexistent-root',
      log: memoryLogger().logger,
      now: () => t,
      timeoutMs: 120_000,
      staleAfterMs: 30_000,
    })
    const sampler = createSampler({ root: join(FIXTURES, 'captured'), clock: manualClock(), monotonic: () => t, containers: p })
    p.latest()
    await p.settled()
    f.hang(true)
    t += 10_000
    // resolves while the engine holds the refresh it started (the call's limit is 2 minutes)
    const s1 = await sampler.sample()
    expect(s1.containers?.items).toHaveLength(6)
    t += 25_000
    const s2 = await sampler.sample()
    expect(s2.containers).toBeUndefined()
    expect(s2.hardware.cpu_count_logical).toBeGreaterThan(0)
    f.hang(false)
    await p.settled()
  })

  test('stats that hang on every container end the read within about two call limits: the rest go without figures', async () => {
    const containers = Array.from({ length: 12 }, (_, i) => ({ id: containerId(`9${i.toString(16)}`), name: `stuck-${i}`, hangStats: true }))
    const f = fake({ containers })
    let t = 0
    // each look at the clock is a second later: the deadline (2 × 1 s) passes while the first calls wait
    const p = createContainersPoller({
      env: { DOCKER_HOST: `unix://${f.socketPath}` },
      root: '/nonexistent-root',
      log: memoryLogger().logger,
      now: () => (t += 1_000),
      timeoutMs: 50,
    })
    p.latest()
    await p.settled()
    const b = p.latest()!
    expect(b.items).toHaveLength(12)
    expect(b.items.every((i) => i.state === 'running' && i.cpu_percent === null)).toBe(true)
    // the first four (the concurrency) were asked; the others were not, once the time was up
    expect(f.calls.filter((c) => c.includes('/stats')).length).toBeLessThanOrEqual(4)
  })

  test('an engine that stops answering is logged once, not every sample', async () => {
    const f = fake()
    const { p, lines, next } = poller(f, { timeoutMs: 50 })
    await next()
    f.hang(true)
    for (let i = 0; i < 3; i++) {
      p.latest()
      await p.settled()
    }
    expect(lines.filter((l) => l.includes('did not answer'))).toHaveLength(1)
    f.hang(false)
  })
})
