import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { queuedSamples } from '../../src/agent/agent.queue-files'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'

/**
 * The real hub (dist/vigil serve) and a real collector (dist/vigil agent, one sample a second)
 * as an operator deletes the collector's device and then revokes its key in the portal's API.
 */
const procs: { kill(signal?: NodeJS.Signals): void; exited: Promise<number> }[] = []
afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
})

/** Waits for a condition the running processes will make true (bounded: 20 s). */
async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const got = await probe()
    if (got) return got
    await Bun.sleep(100) // the real collector's ticks, not time passing for the code under test
  }
  throw new Error(`timed out waiting for ${what}`)
}

test('a deleted device is registered again and reports; a revoked key stops the collector sending, says why, and it stays up', async () => {
  const cwd = tempDir('vigil-refusals-')
  const hub = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data') } })
  procs.push(hub.proc)
  const json = { 'content-type': 'application/json' }
  const account = { email: 'ops@example.test', password: 'correct horse battery' }
  await fetch(`${hub.base}/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...account, company: 'Acme' }) })
  const login = (await (await fetch(`${hub.base}/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(account) })).json()) as {
    access_token: string
  }
  const portal = { authorization: `Bearer ${login.access_token}` }
  const key = (await (
    await fetch(`${hub.base}/v1/auth/api-keys`, { method: 'POST', headers: { ...json, ...portal }, body: JSON.stringify({ name: 'agent' }) })
  ).json()) as { api_key: string; key_id: string }

  const stateDir = join(cwd, 'agent')
  const agent = Bun.spawn([ensureBinary(), 'agent', '--hub', hub.base, '--interval', '1', '--state-dir', stateDir, '--no-update'], {
    env: { PATH: process.env.PATH ?? '', VIGIL_AGENT_KEY: key.api_key },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  procs.push(agent)
  let log = ''
  void (async () => {
    for await (const chunk of agent.stderr) log += new TextDecoder().decode(chunk)
  })()

  const devices = async () => (await (await fetch(`${hub.base}/v1/clients/me/devices`, { headers: portal })).json()) as { device_id: string }[]
  const samples = async (id: string) => {
    const res = await fetch(`${hub.base}/v1/metrics/hardware/${id}?limit=1`, { headers: portal })
    return res.status === 200 ? ((await res.json()) as { total: number }).total : 0
  }
  const first = (await until('the device', async () => (await devices())[0]))!.device_id
  await until('a sample', async () => (await samples(first)) > 0)

  expect((await fetch(`${hub.base}/v1/clients/me/devices/${first}`, { method: 'DELETE', headers: portal })).status).toBe(204)
  const second = await until('a new device', async () => (await devices()).find((d) => d.device_id !== first)?.device_id)
  await until('samples of the new device', async () => (await samples(second)) >= 2)
  expect(log).toMatch(/WARN .*it was deleted.*registering this machine again.*status=404 code="not_found"/)
  expect(log).not.toContain('refused a sample')

  expect((await fetch(`${hub.base}/v1/auth/api-keys/${key.key_id}`, { method: 'DELETE', headers: portal })).status).toBe(204)
  await until('the refusal', async () => log.includes('API key'))
  expect(log).toMatch(/WARN .*does not accept this collector's API key.*sending stopped, samples are not queued.*status=401 code="unauthorized"/)
  const stored = await samples(second)
  // three more intervals: the collector is still running, sent nothing, queued nothing
  const lines = log.split('\n').length
  await Bun.sleep(3_000) // the real collector's intervals
  expect(agent.exitCode).toBeNull()
  expect(queuedSamples(stateDir)).toBe(0)
  expect(await samples(second)).toBe(stored)
  expect(log.split('\n').length).toBe(lines) // and logged nothing more
  expect(log).not.toContain('queueing until')
}, 60_000)
