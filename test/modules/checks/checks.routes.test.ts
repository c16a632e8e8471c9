import { afterEach, describe, expect, test } from 'bun:test'
import { sweepHeartbeats } from '../../../src/modules/checks/checks.heartbeat'
import { getCheckDetail, incidentsPage } from '../../../src/modules/checks/checks.views'
import { testApp, type TestApp } from '../../helpers/app'
import { addMember, createTenant } from '../../helpers/fixtures'

const servers: { stop: (force?: boolean) => unknown }[] = []
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true)
})

/** An app whose tenants may call loopback (the local servers tests start), as VIGIL_OUTBOUND_ALLOW_LOCAL does. */
const localApp = () => testApp({ config: { outbound: { allowPrivate: false, allowLocal: true } } })

function httpServer(fetch: (req: Request) => Response | Promise<Response>) {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch })
  servers.push(server)
  return `http://127.0.0.1:${server.port}`
}

async function createCheck(t: TestApp, headers: Record<string, string>, body: Record<string, unknown>) {
  const res = await t.request('POST', '/v1/checks', { headers, body })
  return res
}

describe('checks API', () => {
  test('create, read, list, change and delete an HTTP check; defaults filled in', async () => {
    const t = localApp()
    const a = await createTenant(t)
    const created = await createCheck(t, a.userHeaders, { name: 'Site', kind: 'http', settings: { url: 'https://example.com/health' } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      name: 'Site',
      kind: 'http',
      interval_s: 60,
      timeout_ms: 10000,
      down_after: 3,
      up_after: 2,
      run_on_hub: true,
      device_ids: [],
      paused: false,
      state: 'pending',
      heartbeat_token: null,
      heartbeat_url: null,
      settings: { url: 'https://example.com/health', method: 'GET', accepted_status: ['200-299'], follow_redirects: true, verify_tls: true },
      places: [{ place: 'hub', state: 'pending', last_checked_at: null }],
    })
    const id = created.body.id as string
    const one = await t.request('GET', `/v1/checks/${id}`, { headers: a.userHeaders })
    expect(one.status).toBe(200)
    expect(one.body.uptime).toEqual({ '24h': null, '7d': null, '30d': null, '365d': null })
    expect(one.body.response_time['24h']).toEqual({ p50: null, p95: null, p99: null })
    const list = await t.request('GET', '/v1/checks', { headers: a.userHeaders })
    expect(list.body).toHaveLength(1)
    expect(list.body[0].sparkline).toHaveLength(48)
    const changed = await t.request('PATCH', `/v1/checks/${id}`, { headers: a.userHeaders, body: { interval_s: 30, name: 'Site 2', paused: true } })
    expect(changed.body).toMatchObject({ interval_s: 30, name: 'Site 2', paused: true, state: 'paused' })
    expect((await t.request('DELETE', `/v1/checks/${id}`, { headers: a.userHeaders })).status).toBe(204)
    expect((await t.request('GET', `/v1/checks/${id}`, { headers: a.userHeaders })).status).toBe(404)
  })

  test('a credential header is answered masked and kept when sent back masked; the agent gets it whole', async () => {
    const t = localApp()
    const a = await createTenant(t)
    const headers = { authorization: 'Bearer s3cr3t-token-abcd', accept: 'text/html' }
    const created = await createCheck(t, a.userHeaders, { name: 'api', kind: 'http', settings: { url: 'https://api.example/health', headers } })
    expect(created.body.settings.headers).toEqual({ authorization: '••••abcd', accept: 'text/html' })
    const id = created.body.id as string
    const patched = await t.request('PATCH', `/v1/checks/${id}`, { headers: a.userHeaders, body: { settings: { ...created.body.settings, keyword: 'ok' } } })
    expect(patched.body.settings.headers.authorization).toBe('••••abcd')
    const stored = t.db.sqlite.query<{ settings: string }, []>('SELECT settings FROM checks').get()!.settings
    expect(stored).not.toContain('s3cr3t')
    expect(JSON.stringify((await t.request('GET', '/v1/checks', { headers: a.userHeaders })).body)).not.toContain('s3cr3t')
  })

  test('bad input is a 422 with the detail list; a kind without its required settings names them', async () => {
    const t = localApp()
    const a = await createTenant(t)
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{}, ['body', 'name']],
      [{ name: 'x', kind: 'smtp', settings: {} }, ['body', 'kind']],
      [{ name: 'x'.repeat(101), kind: 'tcp', settings: { host: 'a', port: 1 } }, ['body', 'name']],
      [{ name: 'x', kind: 'tcp', settings: { host: 'example.com' } }, ['body', 'settings', 'port']],
      [{ name: 'x', kind: 'tcp', settings: { host: 'example.com', port: 70000 } }, ['body', 'settings', 'port']],
      [{ name: 'x', kind: 'http', settings: { url: 'https://a.example', surprise: 1 } }, ['body', 'settings', 'surprise']],
      [{ name: 'x', kind: 'http', settings: { url: 'https://a.example' }, interval_s: 5 }, ['body', 'interval_s']],
      [{ name: 'x', kind: 'http', settings: { url: 'https://a.example', accepted_status: ['2xx'] } }, ['body', 'settings', 'accepted_status', 0]],
      [{ name: 'x', kind: 'dns', settings: { name: 'a.example', resolver: 'not-an-ip' } }, ['body', 'settings', 'resolver']],
      [{ name: 'x', kind: 'heartbeat', settings: {} }, ['body', 'settings', 'period_s']],
      [{ name: 'x', kind: 'http', settings: { url: 'https://a.example', headers: { 'bad header': 'v' } } }, ['body', 'settings', 'headers', 'bad header']],
    ]
    for (const [body, loc] of cases) {
      const res = await createCheck(t, a.userHeaders, body)
      expect(res.status).toBe(422)
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc)
    }
    const timeout = await createCheck(t, a.userHeaders, { name: 'x', kind: 'tcp', settings: { host: 'a.example', port: 1 }, interval_s: 10, timeout_ms: 20000 })
    expect(timeout.status).toBe(400)
    expect(timeout.body.error).toMatchObject({ code: 'invalid_parameter', param: 'timeout_ms' })
    const device = await createCheck(t, a.userHeaders, { name: 'x', kind: 'tcp', settings: { host: 'a.example', port: 1 }, device_ids: ['dev_nope'] })
    expect(device.body.error).toMatchObject({ code: 'invalid_parameter', param: 'device_ids.0' })
  })

  test("another tenant's check is 404 everywhere; members read but only owners and admins write", async () => {
    const t = localApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const { body } = await createCheck(t, a.userHeaders, { name: 'Site', kind: 'tcp', settings: { host: 'example.com', port: 443 } })
    for (const [method, path] of [
      ['GET', `/v1/checks/${body.id}`],
      ['PATCH', `/v1/checks/${body.id}`],
      ['DELETE', `/v1/checks/${body.id}`],
      ['GET', `/v1/checks/${body.id}/results`],
      ['GET', `/v1/checks/${body.id}/series`],
      ['GET', `/v1/checks/${body.id}/incidents`],
      ['POST', `/v1/checks/${body.id}/rotate-token`],
    ] as const) {
      const res = await t.request(method, path, { headers: b.userHeaders, body: method === 'PATCH' ? { name: 'mine' } : undefined })
      expect(res.status).toBe(404)
    }
    expect((await t.request('GET', '/v1/checks', { headers: b.userHeaders })).body).toEqual([])
    expect((await t.request('GET', '/v1/checks', { headers: a.keyHeaders })).status).toBe(401)
    expect((await t.request('GET', '/v1/checks')).status).toBe(401)
    const member = await addMember(t, a.clientId, 'member')
    expect((await t.request('GET', `/v1/checks/${body.id}`, { headers: member.headers })).status).toBe(200)
    expect((await t.request('DELETE', `/v1/checks/${body.id}`, { headers: member.headers })).status).toBe(403)
  })

  test("hub checks follow the account's outbound policy: loopback and metadata are refused when saved", async () => {
    const t = testApp()
    const a = await createTenant(t)
    for (const settings of [
      { kind: 'http', settings: { url: 'http://127.0.0.1:8080/' } },
      { kind: 'tcp', settings: { host: '169.254.169.254', port: 80 } },
      { kind: 'http', settings: { url: 'http://user:pw@example.com/' } },
      { kind: 'dns', settings: { name: 'example.com', resolver: '10.0.0.1' } },
    ]) {
      const res = await createCheck(t, a.userHeaders, { name: 'x', ...settings })
      expect(res.status).toBe(422)
      expect(res.body.error.code).toBe('unsafe_url')
    }
  })

  test('test now answers the raw result of one attempt and stores nothing; it is rate-limited per account', async () => {
    const t = localApp()
    const a = await createTenant(t)
    const url = httpServer(() => new Response('all good', { status: 200 }))
    const res = await t.request('POST', '/v1/checks/test', { headers: a.userHeaders, body: { kind: 'http', settings: { url: `${url}/`, keyword: 'good' } } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ ok: true, status_code: 200, error: null, detail: 'all good' })
    expect(typeof res.body.response_ms).toBe('number')
    const absent = await t.request('POST', '/v1/checks/test', { headers: a.userHeaders, body: { kind: 'http', settings: { url: `${url}/`, keyword: 'bad' } } })
    expect(absent.body).toMatchObject({ ok: false, error: 'keyword absent' })
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM check_results').get()).toEqual({ n: 0 })
    let last = 200
    for (let i = 0; i < 10 && last === 200; i++) {
      last = (await t.request('POST', '/v1/checks/test', { headers: a.userHeaders, body: { kind: 'tcp', settings: { host: '127.0.0.1', port: 1 } } })).status
    }
    expect(last).toBe(429)
    // another account keeps its own allowance
    const b = await createTenant(t)
    expect(
      (await t.request('POST', '/v1/checks/test', { headers: b.userHeaders, body: { kind: 'tcp', settings: { host: '127.0.0.1', port: 1 } } })).status,
    ).toBe(200)
  })

  test('the checks routes are in the OpenAPI document with their response schemas', async () => {
    const t = localApp()
    const doc = (await t.request('GET', '/openapi.json')).body
    expect(doc.paths['/v1/checks'].post.responses['201'].content['application/json'].schema).toBeDefined()
    expect(doc.paths['/v1/checks/{check_id}/series'].get.parameters.map((p: { name: string }) => p.name)).toContain('range')
    expect(doc.paths['/hb/{token}'].post).toBeDefined()
  })
})

describe('heartbeats', () => {
  async function heartbeatCheck(t: TestApp, headers: Record<string, string>) {
    const res = await createCheck(t, headers, { name: 'Backup', kind: 'heartbeat', settings: { period_s: 3600, grace_s: 300 } })
    expect(res.status).toBe(201)
    return res.body as { id: string; heartbeat_token: string; heartbeat_url: string }
  }

  test('the token is shown once, stored hashed, and can be rotated (the old one stops at once)', async () => {
    const t = localApp()
    const a = await createTenant(t)
    const check = await heartbeatCheck(t, a.userHeaders)
    expect(check.heartbeat_token).toMatch(/^hb_/)
    expect(check.heartbeat_url).toBe(`${t.ctx.config.siteUrl}/hb/${check.heartbeat_token}`)
    const read = await t.request('GET', `/v1/checks/${check.id}`, { headers: a.userHeaders })
    expect(read.body.heartbeat_token).toBeNull()
    expect(read.body.heartbeat_url).not.toContain(check.heartbeat_token)
    expect(read.body.heartbeat_token_hint).toBe(check.heartbeat_token.slice(-4))
    const stored = t.db.sqlite.query<{ hb_token_hash: string }, []>('SELECT hb_token_hash FROM checks').get()!
    expect(stored.hb_token_hash).not.toContain(check.heartbeat_token.slice(3))
    const rotated = await t.request('POST', `/v1/checks/${check.id}/rotate-token`, { headers: a.userHeaders })
    expect(rotated.body.heartbeat_token).toMatch(/^hb_/)
    expect((await t.request('POST', `/hb/${check.heartbeat_token}`)).status).toBe(404)
    expect((await t.request('POST', `/hb/${rotated.body.heartbeat_token}`)).status).toBe(200)
  })

  test('calls on time keep it up; later than period + grace it is down with an incident; a call brings it back', async () => {
    const t = localApp()
    const a = await createTenant(t)
    const check = await heartbeatCheck(t, a.userHeaders)
    const call = await t.request('GET', `/hb/${check.heartbeat_token}`)
    expect(call.body).toEqual({ ok: true, state: 'up' })
    t.clock.advance(3600_000 + 299_000) // within period + grace
    expect(await sweepHeartbeats(t.modules.checks)).toBe(0)
    expect((await t.request('POST', `/hb/${check.heartbeat_token}`)).body.state).toBe('up')
    t.clock.advance(3600_000 + 301_000) // late
    expect(await sweepHeartbeats(t.modules.checks)).toBe(1)
    // the access token has expired meanwhile: read through the service
    const down = await getCheckDetail(t.modules.checks, a.clientId, check.id)
    expect(down.state).toBe('down')
    expect(down.last_error).toBe('heartbeat missed: no call within 3600 s + 300 s grace')
    expect(await sweepHeartbeats(t.modules.checks)).toBe(0) // one miss per late period, not one per sweep
    expect((await t.request('POST', `/hb/${check.heartbeat_token}`)).body.state).toBe('up')
    const incidents = await incidentsPage(t.modules.checks, a.clientId, check.id, 10, 0)
    expect(incidents.items).toHaveLength(1)
    expect(incidents.items[0]).toMatchObject({ cause: 'heartbeat missed: no call within 3600 s + 300 s grace', duration_s: 1 })
  })

  test('/fail reports a failure at once; an unknown token is 404 and needs no credential', async () => {
    const t = localApp()
    const a = await createTenant(t)
    const check = await heartbeatCheck(t, a.userHeaders)
    expect((await t.request('POST', `/hb/${check.heartbeat_token}/fail`)).body).toEqual({ ok: true, state: 'down' })
    const res = await t.request('GET', '/hb/hb_nothing-here')
    expect(res.status).toBe(404)
    expect(res.body.error.code).toBe('not_found')
    expect((await t.request('GET', `/hb/${'x'.repeat(201)}`)).status).toBe(422)
  })
})
