import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { fingerprintOf } from '../../src/agent/agent.device'
import { readIdentity } from '../../src/agent/readers/identity'
import { BINARY, ensureBinary, startBinary, tempDir } from '../helpers/binary'
import { hardwareSample } from '../helpers/samples'
import { webhookReceiver } from '../helpers/webhook-receiver'

/**
 * Service checks end to end with the executable: an HTTP check the hub runs against a target on
 * 127.0.0.1 (VIGIL_OUTBOUND_ALLOW_LOCAL, as an operator with a service beside Vigil sets it)
 * goes down, a rule on check:down sends its notice to a webhook channel on a local receiver,
 * and the recovery sends the resolved notice. The check runs every 10 s (its minimum): the
 * test waits for the hub's own scheduler, bounded.
 */
beforeAll(() => void ensureBinary(), 120_000)

const cwd = tempDir('vigil-checks-')
const env = { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_OUTBOUND_ALLOW_LOCAL: 'true', VIGIL_RATE_LIMIT_FREE: '1000000', VIGIL_RATE_LIMIT_ANONYMOUS: '1000000' }
const stops: (() => void)[] = []
afterAll(() => {
  for (const stop of stops) stop()
})

async function session(base: string, email = 'op@example.test') {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json().catch(() => null)) as any }
  }
  const creds = { email, password: 'correct horse battery' }
  await call('POST', '/v1/auth/register', creds)
  const login = await call('POST', '/v1/auth/login', creds)
  const auth = { authorization: `Bearer ${login.body.access_token}` }
  return { call: (method: string, path: string, body?: unknown) => call(method, path, body, auth) }
}

test('an outage of a checked site: a notice at the local receiver, then the recovery', async () => {
  const server = await startBinary({ cwd, env })
  stops.push(() => server.proc.kill())
  const api = await session(server.base)
  let healthy = false
  const site = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => (healthy ? new Response('shop is open') : new Response('down for maintenance', { status: 503 })),
  })
  stops.push(() => site.stop(true))
  const receiver = webhookReceiver()
  stops.push(receiver.stop)

  const channel = await api.call('POST', '/v1/channels', { name: 'ops', kind: 'webhook', config: { url: receiver.url } })
  expect(channel.status).toBe(201)
  expect((await api.call('PATCH', '/v1/alerts/settings', { group_window_seconds: 0 })).status).toBe(200)
  const rule = await api.call('POST', '/v1/alerts/rules', {
    name: 'Site down',
    metric: 'check:down',
    operator: '>=',
    threshold: 1,
    severity: 'critical',
    channel_ids: [channel.body.id],
  })
  expect(rule.status).toBe(201)
  const check = await api.call('POST', '/v1/checks', {
    name: 'shop',
    kind: 'http',
    settings: { url: `http://127.0.0.1:${site.port}/`, keyword: 'open' },
    interval_s: 10,
    timeout_ms: 2000,
    down_after: 1,
    up_after: 1,
  })
  expect(check.status).toBe(201)

  const notices = () => receiver.requests.map((r) => JSON.parse(r.body) as { event?: string; title?: string })
  await receiver.waitFor(() => notices().some((n) => n.event === 'firing'))
  const firing = notices().find((n) => n.event === 'firing')!
  expect(firing.title).toBe('CRITICAL: shop is down (HTTP 503)')
  const down = await api.call('GET', `/v1/checks/${check.body.id}`)
  expect(down.body).toMatchObject({ state: 'down', last_status_code: 503, last_error: 'status 503 not accepted' })
  const incidents = await api.call('GET', `/v1/checks/${check.body.id}/incidents`)
  expect(incidents.body.items[0]).toMatchObject({ ended_at: null, cause: 'status 503 not accepted' })

  healthy = true
  await receiver.waitFor(() => notices().some((n) => n.event === 'resolved'))
  expect(notices().find((n) => n.event === 'resolved')!.title).toBe('RESOLVED: shop is up again')
  const up = await api.call('GET', `/v1/checks/${check.body.id}`)
  expect(up.body).toMatchObject({ state: 'up', last_status_code: 200, last_error: null })
  expect(up.body.uptime['24h']).toBeGreaterThan(0)
  expect((await api.call('GET', `/v1/checks/${check.body.id}/incidents`)).body.items[0].ended_at).not.toBeNull()
  expect((await api.call('GET', '/v1/clients/me/fleet')).body.checks_down).toBe(0)
}, 90_000)

test('a check run by a real `vigil agent`: it reaches a target only its own network offers, and its results reach the hub in its batches', async () => {
  // no VIGIL_OUTBOUND_ALLOW_LOCAL: the hub may not call 127.0.0.1, the agent may (its network is its own)
  const agentCwd = tempDir('vigil-checks-agent-')
  const server = await startBinary({ cwd: agentCwd, env: { VIGIL_DATA_DIR: join(agentCwd, 'data'), VIGIL_RATE_LIMIT_FREE: '1000000' } })
  stops.push(() => server.proc.kill())
  const api = await session(server.base, 'agent-op@example.test')
  const site = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('intranet ok') })
  stops.push(() => site.stop(true))
  const key = await api.call('POST', '/v1/auth/api-keys', { name: 'nas' })
  // the device as the agent will register it (same machine, same fingerprint), so the check can name it first
  const stateDir = join(agentCwd, 'agent')
  const identity = { ...readIdentity('/'), fingerprint: fingerprintOf(readIdentity('/'), stateDir) }
  const device = await fetch(`${server.base}/v1/clients/me/devices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key.body.api_key },
    body: JSON.stringify({
      hostname: identity.hostname,
      os: identity.os,
      os_version: identity.os_version,
      arch: identity.arch,
      fingerprint: identity.fingerprint,
    }),
  })
  const deviceId = ((await device.json()) as { device_id: string }).device_id
  const url = `http://127.0.0.1:${site.port}/`
  expect((await api.call('POST', '/v1/checks', { name: 'x', kind: 'http', settings: { url } })).body.error.code).toBe('unsafe_url')
  const check = await api.call('POST', '/v1/checks', {
    name: 'intranet',
    kind: 'http',
    settings: { url, keyword: 'ok' },
    interval_s: 10,
    timeout_ms: 2000,
    run_on_hub: false,
    device_ids: [deviceId],
  })
  expect(check.status).toBe(201)

  const agent = Bun.spawn([BINARY, 'agent', '--hub', server.base, '--interval', '1', '--state-dir', stateDir, '--no-update', '--log-level', 'warn'], {
    env: { PATH: process.env.PATH ?? '', VIGIL_AGENT_KEY: key.body.api_key },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  stops.push(() => agent.kill())
  let view: any = null
  for (let i = 0; i < 300; i++) {
    view = (await api.call('GET', `/v1/checks/${check.body.id}`)).body
    if (view.state === 'up') break
    await Bun.sleep(100)
  }
  expect(view).toMatchObject({ state: 'up', last_status_code: 200 })
  expect(view.places).toEqual([expect.objectContaining({ place: deviceId, state: 'up', ok: true })])
  const results = await api.call('GET', `/v1/checks/${check.body.id}/results`)
  expect(results.body.items[0]).toMatchObject({ place: deviceId, ok: true, status_code: 200 })
}, 90_000)

test("a check's secrets: stored sealed in the executable's database, answered masked, sent by the hub's probe", async () => {
  const dir = tempDir('vigil-check-secrets-')
  const server = await startBinary({ cwd: dir, env: { ...env, VIGIL_DATA_DIR: join(dir, 'data') } })
  stops.push(() => server.proc.kill())
  const api = await session(server.base)
  const seen = Promise.withResolvers<{ url: string; auth: string | null; body: string }>()
  const site = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      seen.resolve({ url: req.url, auth: req.headers.get('authorization'), body: await req.text() })
      return new Response('ok')
    },
  })
  stops.push(() => site.stop(true))
  const url = `http://127.0.0.1:${site.port}/hook?token=url-s3cret-0123456789`
  const check = await api.call('POST', '/v1/checks', {
    name: 'hook',
    kind: 'http',
    settings: { url, method: 'POST', headers: { authorization: 'Bearer hdr-s3cret-abcdef' }, body: '{"password":"body-s3cret-xyz1"}' },
    interval_s: 10,
    timeout_ms: 2000,
  })
  expect(check.status).toBe(201)
  expect(check.body.settings).toMatchObject({
    url: `http://127.0.0.1:${site.port}/hook?token=••••6789`,
    headers: { authorization: '••••cdef' },
    body: '••••z1"}',
  })
  // the hub's own scheduler runs it within its 10 s interval
  const got = await seen.promise
  expect(got).toEqual({ url, auth: 'Bearer hdr-s3cret-abcdef', body: '{"password":"body-s3cret-xyz1"}' })
  const db = new Database(join(dir, 'data', 'vigil.db'), { readonly: true })
  const raw = db.query<{ settings: string }, []>('SELECT settings FROM checks').get()!.settings
  db.close()
  expect(raw).not.toContain('s3cret')
  expect(JSON.stringify((await api.call('GET', `/v1/checks/${check.body.id}`)).body)).not.toContain('s3cret')
}, 60_000)

test('a batch whose check results the executable cannot store is not acknowledged; its replay stores them', async () => {
  const dir = tempDir('vigil-check-results-')
  const server = await startBinary({ cwd: dir, env: { ...env, VIGIL_DATA_DIR: join(dir, 'data') } })
  stops.push(() => server.proc.kill())
  const api = await session(server.base, 'results-op@example.test')
  const key = await api.call('POST', '/v1/auth/api-keys', { name: 'nas' })
  const agentHeaders = { 'content-type': 'application/json', 'x-api-key': key.body.api_key }
  const device = await fetch(`${server.base}/v1/clients/me/devices`, {
    method: 'POST',
    headers: agentHeaders,
    body: JSON.stringify({ hostname: 'nas', os: 'Linux', os_version: '6.1', arch: 'x86_64', fingerprint: 'f'.repeat(64) }),
  })
  const deviceId = ((await device.json()) as { device_id: string }).device_id
  const check = await api.call('POST', '/v1/checks', {
    name: 'router',
    kind: 'tcp',
    settings: { host: '192.168.1.1', port: 80 },
    run_on_hub: false,
    device_ids: [deviceId],
  })
  expect(check.status).toBe(201)
  const at = new Date(Date.now() - 60_000).toISOString()
  const body = JSON.stringify({
    device_id: deviceId,
    recorded_at: at,
    hardware: hardwareSample(0),
    check_results: [{ check_id: check.body.id, ts: at, ok: false, response_ms: null, status_code: null, error: 'connection refused', cert_expires_at: null }],
  })
  const send = () => fetch(`${server.base}/v1/metrics/batch`, { method: 'POST', headers: agentHeaders, body })
  // the results' table refuses writes, as a full disk would
  const db = new Database(join(dir, 'data', 'vigil.db'))
  db.run("CREATE TRIGGER refuse_results BEFORE INSERT ON check_results BEGIN SELECT RAISE(ABORT, 'disk full'); END")
  const refused = await send()
  expect(refused.status).toBe(500)
  db.run('DROP TRIGGER refuse_results')
  db.close()
  expect((await send()).status).toBe(201)
  const results = await api.call('GET', `/v1/checks/${check.body.id}/results`)
  expect(results.body.total).toBe(1)
}, 60_000)
