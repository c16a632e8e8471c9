import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { containerId, startFakeDocker } from '../fakes/docker/fake-docker'
import { BINARY, startBinary, tempDir } from '../helpers/binary'
import { webhookReceiver } from '../helpers/webhook-receiver'

const stops: (() => unknown)[] = []
afterAll(async () => {
  for (const s of stops.reverse()) await s()
})

const waitFor = async (what: string, ok: () => boolean | Promise<boolean>, ms = 60_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await Bun.sleep(50)) if (await ok()) return
  throw new Error(`timed out waiting for ${what}`)
}

/**
 * The whole path with real processes: a Docker engine (the fake socket), `vigil agent` reading
 * it every second, `dist/vigil` storing its blocks and running the default rules, and a webhook
 * channel at a local receiver. A container going from running to exited (code 3) produces a
 * firing notice; running again, a recovery notice.
 */
test('a container exiting non-zero notifies a channel, and its recovery too, through vigil agent and dist/vigil', async () => {
  const web = containerId('a1')
  const docker = startFakeDocker({
    containers: [
      { id: web, name: 'web', image: 'nginx:1.27', cpuNs: 1e9, systemNs: 1e12, startedAt: new Date(Date.now() - 60_000).toISOString() },
      { id: containerId('b2'), name: 'db', image: 'postgres:16', cpuNs: 1e9, systemNs: 1e12 },
    ],
  })
  stops.push(() => docker.stop())
  const receiver = webhookReceiver()
  stops.push(receiver.stop)

  const cwd = tempDir('vigil-containers-e2e-')
  const hub = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_OUTBOUND_ALLOW_LOCAL: 'true' } })
  stops.push(async () => {
    hub.proc.kill('SIGTERM')
    await hub.proc.exited
  })
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(hub.base + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json().catch(() => null)) as any }
  }
  const creds = { email: 'ops@example.test', password: 'correct horse battery' }
  expect((await call('POST', '/v1/auth/register', creds)).status).toBe(201)
  const portal = { authorization: `Bearer ${(await call('POST', '/v1/auth/login', creds)).body.access_token}` }
  const channel = await call('POST', '/v1/channels', { name: 'receiver', kind: 'webhook', config: { url: receiver.url } }, portal)
  expect(channel.status).toBe(201)
  const routed = await call(
    'PATCH',
    '/v1/alerts/settings',
    { routing: { warning: [channel.body.id], critical: [channel.body.id] }, group_window_seconds: 0 },
    portal,
  )
  expect(routed.status).toBe(200)
  const key = (await call('POST', '/v1/auth/api-keys', { name: 'agent' }, portal)).body.api_key as string

  const stateDir = join(cwd, 'agent')
  const agent = Bun.spawn([BINARY, 'agent', '--hub', hub.base, '--interval', '1', '--state-dir', stateDir, '--key', key, '--log-level', 'warn'], {
    env: { PATH: process.env.PATH ?? '', DOCKER_HOST: `unix://${docker.socketPath}` },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  stops.push(async () => {
    agent.kill('SIGTERM')
    await agent.exited
  })

  // the agent registers its device and its containers arrive
  let deviceId = ''
  await waitFor('the containers on the hub', async () => {
    const devices = await call('GET', '/v1/clients/me/devices', undefined, portal)
    deviceId = devices.body?.[0]?.device_id ?? ''
    if (!deviceId) return false
    const list = await call('GET', `/v1/devices/${deviceId}/containers`, undefined, portal)
    return list.body?.items?.length === 2
  })
  const list = await call('GET', `/v1/devices/${deviceId}/containers`, undefined, portal)
  expect(list.body.engine).toMatchObject({ kind: 'docker', unavailable_reason: null })
  expect(list.body.items.map((c: { name: string; state: string }) => [c.name, c.state])).toEqual([
    ['db', 'running'],
    ['web', 'running'],
  ])

  const notices = () => receiver.requests.map((r) => JSON.parse(r.body) as { event: string; title: string })
  const about = (event: string) => notices().filter((n) => n.event === event && n.title.includes('container web '))

  docker.set(web, { state: 'exited', exitCode: 3, finishedAt: new Date().toISOString() })
  await waitFor('the firing notice', () => about('firing').length === 1)
  expect(about('firing')[0]!.title).toBe(`CRITICAL: container web exited with code 3 on ${list.body.items[0].device_name}`)

  const web2 = await call('GET', `/v1/devices/${deviceId}/containers`, undefined, portal)
  const id = web2.body.items.find((c: { name: string }) => c.name === 'web').container_id
  const events = await call('GET', `/v1/devices/${deviceId}/containers/${id}/events`, undefined, portal)
  expect(events.body.items[0]).toMatchObject({ kind: 'stopped', exit_code: 3 })

  docker.set(web, { state: 'running', exitCode: 0, startedAt: new Date().toISOString() })
  await waitFor('the recovery notice', () => about('resolved').length === 1)
  expect(about('firing')).toHaveLength(1)
  const after = await call('GET', `/v1/devices/${deviceId}/containers/${id}/events`, undefined, portal)
  expect(after.body.items[0]).toMatchObject({ kind: 'started' })
}, 120_000)
