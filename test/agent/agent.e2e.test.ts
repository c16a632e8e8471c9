import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startAgent } from '../../src/agent/agent.main'
import { createSampler } from '../../src/agent/agent.sample'
import { readIdentity } from '../../src/agent/readers/identity'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import { startBinary, tempDir } from '../helpers/binary'
import { manualTimers } from '../helpers/timers'

const INTERVAL = 10_000
const procs: { kill(signal?: NodeJS.Signals): void; exited: Promise<number> }[] = []
afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
})

async function hub(cwd: string) {
  const started = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data') } })
  procs.push(started.proc)
  return started
}

/**
 * The real hub (dist/vigil) and the agent loop in-process with this machine's /proc and /sys:
 * an operator account and a collector key through the API, a few ticks, the samples read
 * back through the history endpoint. Then the hub stops: the agent queues; a hub on the same
 * data dir comes back and gets every sample once, in order.
 */
test('the agent reports to a real hub, queues while it is down and replays when it is back, losing nothing', async () => {
  const cwd = tempDir('vigil-agent-e2e-')
  let h = await hub(cwd)
  const json = { 'content-type': 'application/json' }
  const account = { email: 'ops@example.test', password: 'correct horse battery' }
  expect((await fetch(`${h.base}/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...account, company: 'Acme' }) })).status).toBe(201)
  const login = (await (await fetch(`${h.base}/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(account) })).json()) as {
    access_token: string
  }
  const portal = { authorization: `Bearer ${login.access_token}` }
  const key = (await (
    await fetch(`${h.base}/v1/auth/api-keys`, { method: 'POST', headers: { ...json, ...portal }, body: JSON.stringify({ name: 'agent' }) })
  ).json()) as { api_key: string }

  // recorded_at must not lie in the hub's future: the agent's clock starts an hour back
  const clock = manualClock(Date.now() - 3_600_000)
  const m = manualTimers()
  const { logger } = memoryLogger()
  const stateDir = join(cwd, 'agent')
  const identity = { ...readIdentity('/'), fingerprint: 'e2e-fingerprint' }
  const run = (base: string) =>
    startAgent(
      { hub: base, key: key.api_key, intervalMs: INTERVAL, stateDir },
      { sampler: createSampler({ root: '/', clock }), clock, timers: m.timers, fetch: (u, i) => fetch(u, i), log: logger, identity, random: () => 0 },
    )
  let agent = run(h.base)
  const tick = async () => {
    clock.advance(INTERVAL)
    expect(m.fire()).toBe(1)
    await agent.settled()
  }
  for (let i = 0; i < 3; i++) await tick()
  const deviceId = agent.deviceId()!
  expect(deviceId).toBeString()

  const history = async () => {
    const res = await fetch(`${h.base}/v1/metrics/hardware/${deviceId}?limit=100`, { headers: portal })
    expect(res.status).toBe(200)
    return (await res.json()) as { total: number; items: Record<string, unknown>[] }
  }
  const page = await history()
  expect(page.total).toBe(3)
  const newest = page.items[0]!
  expect(newest.cpu_count_logical).toBeGreaterThan(0)
  expect(newest.ram_total_gb).toBeGreaterThan(0)
  expect(newest.disk_used_percent).toBeNumber() // derived by the hub from disk_partitions
  expect(newest.top_processes).toMatchObject({ cpu: expect.any(Array), memory: expect.any(Array) }) // the extension field is kept
  const net = (await (await fetch(`${h.base}/v1/metrics/network/${deviceId}/latest`, { headers: portal })).json()) as Record<string, unknown>
  expect(net.latency_avg_ms === null || typeof net.latency_avg_ms === 'number').toBe(true)
  expect(net.bytes_recv_total).toBeNumber()

  // the hub goes away: three samples wait in the queue
  h.proc.kill('SIGTERM')
  await h.proc.exited
  for (let i = 0; i < 3; i++) await tick()
  expect(agent.queued().count).toBe(3)
  await agent.stop()

  // it comes back on another port with the same data: the agent finds the same device and replays
  h = await hub(cwd)
  agent = run(h.base)
  await tick()
  expect(agent.deviceId()).toBe(deviceId)
  expect(agent.queued().count).toBe(0)
  const after = await history()
  expect(after.total).toBe(7)
  const times = after.items.map((i) => Date.parse(i.recorded_at as string))
  expect(new Set(times).size).toBe(7) // none twice
  expect(times).toEqual([...times].sort((a, b) => b - a))
  await agent.stop()
}, 60_000)
