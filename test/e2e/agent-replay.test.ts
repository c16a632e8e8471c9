import { afterAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openQueue } from '../../src/agent/agent.queue'
import { queuedSamples } from '../../src/agent/agent.queue-files'
import { readIdentity } from '../../src/agent/readers/identity'
import { systemClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import { BINARY, startBinary, tempDir } from '../helpers/binary'
import { hardwareSample, networkSample } from '../helpers/samples'
import { createHotStore } from '../../src/modules/metrics/metrics.hot.store'

const procs: { kill(signal?: number | NodeJS.Signals): void; exited: Promise<number> }[] = []
afterAll(async () => {
  for (const p of procs) p.kill('SIGKILL')
  await Promise.all(procs.map((p) => p.exited))
})

const DAY = 8_640
const waitFor = async (what: string, ok: () => boolean | Promise<boolean>, ms = 30_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await Bun.sleep(20)) if (await ok()) return
  throw new Error(`timed out waiting for ${what}`)
}

/**
 * The spawned executable on both sides. A day of 10 s samples waits in the agent's queue, the
 * hub already holding its first 500 (an agent killed after the hub stored a bulk, before it
 * left the queue). The agent replays through a proxy that passes two bulks on and holds the
 * answer to the third once the hub stored it: the agent is killed -9 waiting for it (so in the
 * middle of its replay however fast the replay runs) and started again; then
 * the hub stops for 5 s (shorter than a real outage's minute: the agent's interval here is 1 s, so
 * 5 s is five samples queued) and comes back on the same port. Every recorded_at is then
 * stored exactly once: counted in the hub's database.
 */
test('kill -9 during a replay and a hub outage: every sample stored once', async () => {
  const cwd = tempDir('vigil-replay-e2e-')
  const env = { VIGIL_DATA_DIR: join(cwd, 'data') }
  const hub = await startBinary({ cwd, env })
  procs.push(hub.proc)
  const json = { 'content-type': 'application/json' }
  const account = { email: 'ops@example.test', password: 'correct horse battery' }
  expect((await fetch(`${hub.base}/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...account, company: 'Acme' }) })).status).toBe(
    201,
  )
  const { access_token } = (await (await fetch(`${hub.base}/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(account) })).json()) as {
    access_token: string
  }
  const { api_key } = (await (
    await fetch(`${hub.base}/v1/auth/api-keys`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ name: 'agent' }),
    })
  ).json()) as { api_key: string }
  const keyHeaders = { ...json, 'x-api-key': api_key }

  // the queue a day-long outage leaves, ending a minute ago
  const stateDir = join(cwd, 'agent')
  const start = Date.now() - 60_000 - DAY * 10_000
  const items = Array.from({ length: DAY }, (_, i) => ({
    recorded_at: new Date(start + i * 10_000).toISOString(),
    hardware: hardwareSample(i),
    network: networkSample(i),
  }))
  const fill = openQueue(stateDir, { clock: systemClock, log: memoryLogger().logger })
  fill.pushMany(items.map((it) => ({ body: JSON.stringify(it), recordedAt: Date.parse(it.recorded_at) })))
  fill.close()
  writeFileSync(join(stateDir, 'key'), api_key, { mode: 0o600 })
  // the same device the agent will register (same fingerprint), holding the first 500 already
  const id = readIdentity('/')
  const dev = (await (await fetch(`${hub.base}/v1/clients/me/devices`, { method: 'POST', headers: keyHeaders, body: JSON.stringify(id) })).json()) as {
    device_id: string
  }
  const pre = await fetch(`${hub.base}/v1/metrics/bulk`, {
    method: 'POST',
    headers: { ...keyHeaders, 'x-device-id': dev.device_id },
    body: JSON.stringify({ items: items.slice(0, 500) }),
  })
  expect(pre.status).toBe(201)

  const queued = () => queuedSamples(stateDir)
  // the hub's answers passed on for two bulks; the third is stored by the hub and its answer held
  const held = Promise.withResolvers<void>()
  let bulks = 0
  const proxy = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url)
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer()
      const res = await fetch(hub.base + url.pathname + url.search, { method: req.method, headers: req.headers, body })
      const answer = await res.arrayBuffer()
      if (url.pathname.startsWith('/v1/metrics') && ++bulks === 3) {
        held.resolve()
        return new Promise<Response>(() => {}) // the agent dies waiting
      }
      const headers = new Headers(res.headers)
      headers.delete('content-encoding')
      headers.delete('content-length')
      return new Response(answer, { status: res.status, headers })
    },
  })
  const agent = (hubUrl: string) => {
    const p = Bun.spawn([BINARY, 'agent', '--hub', hubUrl, '--interval', '1', '--state-dir', stateDir, '--log-level', 'warn'], {
      env: { PATH: process.env.PATH ?? '' },
      stdout: 'ignore',
      stderr: 'ignore',
    })
    procs.push(p)
    return p
  }

  let a = agent(`http://127.0.0.1:${proxy.port}`)
  await held.promise
  a.kill('SIGKILL')
  await a.exited
  proxy.stop(true)
  const left = queued()
  expect(left).toBeGreaterThan(0) // killed during the replay, not after it

  a = agent(hub.base)
  await waitFor('the replay to end', () => queued() === 0)
  // the hub away for 5 s, then back on the same port and data
  hub.proc.kill('SIGTERM')
  await hub.proc.exited
  await Bun.sleep(5_000)
  expect(queued()).toBeGreaterThan(0)
  // on the same port (the agent's --hub): startBinary picks a fresh one, so spawned here
  const again = Bun.spawn([BINARY, 'serve'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', VIGIL_PORT: String(hub.port), VIGIL_HOST: '127.0.0.1', ...env },
    stdout: 'ignore',
    stderr: 'ignore',
  })
  procs.push(again)
  await waitFor('the outage to be replayed', () => queued() === 0)
  a.kill('SIGTERM')
  await a.exited
  again.kill('SIGTERM')
  await again.exited

  const db = new Database(join(cwd, 'data', 'vigil.db'), { readonly: true })
  createHotStore(db) // the samples not yet sealed are read from metric_hot
  const seq = db.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(dev.device_id)!.seq
  const day = db.query<{ n: number; times: number; full: number }, [number, number, number]>(
    'SELECT count(*) AS n, count(DISTINCT ts) AS times, sum(kinds & 3 = 3) AS full FROM metric_samples WHERE device_seq = ? AND ts >= ? AND ts < ?',
  )
  expect(day.get(seq, start, start + DAY * 10_000)).toEqual({ n: DAY, times: DAY, full: DAY })
  const live = day.get(seq, start + DAY * 10_000, Date.now() + 60_000)!
  expect(live.n).toBe(live.times) // the live samples, outage included: none twice
  expect(live.n).toBeGreaterThanOrEqual(5)
  db.close()
}, 120_000)
