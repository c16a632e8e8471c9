import { afterEach, describe, expect, test } from 'bun:test'
import { addMember, createTenant } from '../../helpers/fixtures'
import { webhookReceiver, verify } from '../../helpers/webhook-receiver'
import { tenantWithEndpoint, webhookApp, type WebhookApp } from '../../helpers/webhooks'

let app: WebhookApp | null = null
let receiver: ReturnType<typeof webhookReceiver> | null = null
afterEach(async () => {
  await app?.stop()
  receiver?.stop()
  app = receiver = null
})

const setup = () => {
  app = webhookApp()
  receiver = webhookReceiver()
  return { t: app, r: receiver }
}

describe('webhook endpoints', () => {
  test('the secret is shown once, at creation; reads show its last 4 characters', async () => {
    const { t, r } = setup()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url, ['device.registered', 'device.registered', 'alert.firing'])
    expect(endpoint).toMatchObject({ url: r.url, enabled: true, disabled_reason: null, event_types: ['device.registered', 'alert.firing'], description: '' })
    expect(endpoint.secret).toMatch(/^whsec_/)
    const read = await t.request('GET', `/v1/webhooks/endpoints/${endpoint.id}`, { headers: tenant.userHeaders })
    expect(read.body.secret).toBeNull()
    expect(read.body.secret_hint).toBe(`••••${endpoint.secret.slice(-4)}`)
    const list = await t.request('GET', '/v1/webhooks/endpoints', { headers: tenant.userHeaders })
    expect(list.body.map((e: { id: string; secret: null }) => [e.id, e.secret])).toEqual([[endpoint.id, null]])
    // not in the database in the clear either
    const stored = t.db.sqlite.query<{ secret_enc: string }, []>('SELECT secret_enc FROM webhook_endpoints').get()!
    expect(stored.secret_enc).not.toContain(endpoint.secret.slice(6, 20))
  })

  test('bad input is a 422 with the detail list', async () => {
    const { t, r } = setup()
    const a = await createTenant(t)
    const bad = [
      {},
      { url: r.url },
      { url: r.url, event_types: [] },
      { url: r.url, event_types: ['alert.exploded'] },
      { url: 5, event_types: ['alert.firing'] },
      { url: r.url, event_types: ['alert.firing'], enabled: 'yes' },
      { url: r.url, event_types: ['alert.firing'], description: 'x'.repeat(501) },
    ]
    for (const body of bad) {
      const res = await t.request('POST', '/v1/webhooks/endpoints', { headers: a.userHeaders, body })
      expect(res.status).toBe(422)
      expect(res.body.detail.length).toBeGreaterThan(0)
    }
    const query = await t.request('GET', '/v1/webhooks/deliveries?status=lost', { headers: a.userHeaders })
    expect(query.status).toBe(422)
  })

  test('an account may have at most 20 endpoints: the next is 409 conflict', async () => {
    const { t } = setup()
    const a = await createTenant(t)
    const make = () =>
      t.request('POST', '/v1/webhooks/endpoints', { headers: a.userHeaders, body: { url: 'https://hooks.example.com/x', event_types: ['alert.firing'] } })
    for (let i = 0; i < 20; i++) expect((await make()).status).toBe(201)
    const over = await make()
    expect(over.status).toBe(409)
    expect(over.body.error).toMatchObject({ code: 'conflict', message: 'An account may have at most 20 webhook endpoints; delete one first' })
  })

  test('test sends and resends are limited per account: 30 a minute together, then 429 with Retry-After', async () => {
    const { t, r } = setup()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url)
    const sent = await t.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/test`, { headers: tenant.userHeaders })
    await t.settle()
    for (let i = 0; i < 29; i++)
      expect((await t.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/test`, { headers: tenant.userHeaders })).status).toBe(202)
    const resend = await t.request('POST', `/v1/webhooks/deliveries/${sent.body.id}/resend`, { headers: tenant.userHeaders })
    expect(resend.status).toBe(429)
    expect(resend.body.error).toMatchObject({ code: 'rate_limited', param: '' })
    expect(Number(resend.headers.get('retry-after'))).toBeGreaterThan(0)
    const other = await tenantWithEndpoint(t, r.url)
    expect((await t.request('POST', `/v1/webhooks/endpoints/${other.endpoint.id}/test`, { headers: other.tenant.userHeaders })).status).toBe(202)
  })

  test('URLs are checked against the outbound policy when saved, with the reason', async () => {
    const t = (app = webhookApp({ allowPrivate: false, allowLocal: false }))
    const a = await createTenant(t)
    const cases: [string, string][] = [
      // a tenant is told the address is not allowed, never which setting would allow it
      ['http://127.0.0.1:9/hook', 'url points at a loopback address (this server), which is not allowed'],
      ['http://[::ffff:169.254.169.254]/', 'url points at a cloud-metadata address, which is not allowed'],
      ['http://10.0.0.5/hook', 'url points at a private network address, which is not allowed'],
      ['ftp://example.com/hook', 'url must use http or https'],
      ['https://user:pw@example.com/hook', 'url must not carry credentials'],
      ['not a url', 'url must be an absolute http(s) URL'],
    ]
    for (const [url, message] of cases) {
      const res = await t.request('POST', '/v1/webhooks/endpoints', { headers: a.userHeaders, body: { url, event_types: ['alert.firing'] } })
      expect(res.status).toBe(422)
      expect(res.body.error).toMatchObject({ code: 'unsafe_url', param: 'url' })
      expect(res.body.error.message).toStartWith(message)
    }
    const ok = await t.request('POST', '/v1/webhooks/endpoints', {
      headers: a.userHeaders,
      body: { url: 'https://hooks.example.com/vigil', event_types: ['alert.firing'] },
    })
    expect(ok.status).toBe(201)
    const patched = await t.request('PATCH', `/v1/webhooks/endpoints/${ok.body.id}`, { headers: a.userHeaders, body: { url: 'http://localhost:8080/' } })
    expect(patched.body.error.code).toBe('unsafe_url')
    expect(JSON.stringify(patched.body)).not.toContain('VIGIL_OUTBOUND')
  })

  test("the operator's own account is told which setting allows a loopback address", async () => {
    const t = (app = webhookApp({ allowPrivate: false, allowLocal: false }))
    const operator = await createTenant(t, { role: 'admin' })
    const res = await t.request('POST', '/v1/webhooks/endpoints', {
      headers: operator.userHeaders,
      body: { url: 'http://127.0.0.1:9/hook', event_types: ['alert.firing'] },
    })
    expect(res.status).toBe(422)
    expect(res.body.error.message).toBe('url points at a loopback address (this server), which is not allowed unless VIGIL_OUTBOUND_ALLOW_LOCAL=true is set')
    // the LAN is the operator's already; metadata stays refused for everyone, with no setting named
    const meta = await t.request('POST', '/v1/webhooks/endpoints', {
      headers: operator.userHeaders,
      body: { url: 'http://169.254.169.254/', event_types: ['alert.firing'] },
    })
    expect(meta.body.error.message).toBe('url points at a cloud-metadata address, which is not allowed')
  })

  test("another tenant's endpoints and deliveries are 404, never 403", async () => {
    const { t, r } = setup()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url)
    const test = await t.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/test`, { headers: tenant.userHeaders })
    const other = await createTenant(t)
    const h = { headers: other.userHeaders }
    const paths: [string, string, unknown?][] = [
      ['GET', `/v1/webhooks/endpoints/${endpoint.id}`],
      ['PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { description: 'mine now' }],
      ['DELETE', `/v1/webhooks/endpoints/${endpoint.id}`],
      ['POST', `/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, {}],
      ['POST', `/v1/webhooks/endpoints/${endpoint.id}/test`],
      ['GET', `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`],
      ['GET', `/v1/webhooks/deliveries/${test.body.id}`],
      ['POST', `/v1/webhooks/deliveries/${test.body.id}/resend`],
    ]
    for (const [method, path, body] of paths) expect((await t.request(method, path, { ...h, body })).status).toBe(404)
    expect((await t.request('GET', '/v1/webhooks/endpoints', h)).body).toEqual([])
    expect((await t.request('GET', '/v1/webhooks/deliveries', h)).body.total).toBe(0)
  })

  test('members read; only owners and admins change endpoints or resend', async () => {
    const { t, r } = setup()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url)
    const member = await addMember(t, tenant.clientId, 'member')
    const admin = await addMember(t, tenant.clientId, 'admin')
    expect((await t.request('GET', '/v1/webhooks/endpoints', { headers: member.headers })).status).toBe(200)
    expect((await t.request('GET', '/v1/webhooks/event-types', { headers: member.headers })).status).toBe(200)
    expect((await t.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/test`, { headers: member.headers })).status).toBe(403)
    expect((await t.request('DELETE', `/v1/webhooks/endpoints/${endpoint.id}`, { headers: member.headers })).status).toBe(403)
    expect((await t.request('PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { headers: admin.headers, body: { description: 'ops' } })).body.description).toBe(
      'ops',
    )
    expect((await t.request('GET', '/v1/webhooks/endpoints')).status).toBe(401)
  })

  test('the event type catalogue lists what can be subscribed to', async () => {
    const { t } = setup()
    const a = await createTenant(t)
    const res = await t.request('GET', '/v1/webhooks/event-types', { headers: a.userHeaders })
    expect(res.body.payload_version).toBe(1)
    expect(res.body.items.map((i: { type: string }) => i.type)).toEqual([
      'alert.firing',
      'alert.resolved',
      'alert.acknowledged',
      'device.registered',
      'device.deleted',
      'device.offline',
      'device.online',
      'recommendation.created',
      'subscription.updated',
      'endpoint.disabled',
    ])
  })

  test('rotation: a new secret shown once, both signatures during the overlap, only the new one after', async () => {
    const { t, r } = setup()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url)
    const rotated = await t.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, {
      headers: tenant.userHeaders,
      body: { previous_valid_seconds: 60 },
    })
    expect(rotated.status).toBe(200)
    const fresh = rotated.body.secret as string
    expect(fresh).toMatch(/^whsec_/)
    expect(fresh).not.toBe(endpoint.secret)
    expect(rotated.body.previous_secret_expires_at).toBe(new Date(t.clock.now() + 60_000).toISOString())
    await t.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/test`, { headers: tenant.userHeaders })
    await t.settle()
    expect(r.requests[0]!.signature.split(' ')).toHaveLength(2)
    expect(verify(fresh, r.requests[0]!).type).toBe('webhook.test')
    expect(verify(endpoint.secret, r.requests[0]!).type).toBe('webhook.test')
    // (the receiver checks webhook-timestamp against its own clock, within 5 minutes)
    await t.pass(61_000)
    await t.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/test`, { headers: tenant.userHeaders })
    await t.settle()
    expect(r.requests[1]!.signature.split(' ')).toHaveLength(1)
    expect(verify(fresh, r.requests[1]!).type).toBe('webhook.test')
    expect(() => verify(endpoint.secret, r.requests[1]!)).toThrow()
  })

  test('deleting an endpoint takes its deliveries along and stops its events', async () => {
    const { t, r } = setup()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url)
    await t.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/test`, { headers: tenant.userHeaders })
    await t.settle()
    expect((await t.request('DELETE', `/v1/webhooks/endpoints/${endpoint.id}`, { headers: tenant.userHeaders })).status).toBe(204)
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    await t.settle()
    expect(r.requests).toHaveLength(1)
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM webhook_deliveries').get()).toEqual({ n: 0 })
    expect((await t.request('DELETE', `/v1/webhooks/endpoints/${endpoint.id}`, { headers: tenant.userHeaders })).status).toBe(404)
  })
})
