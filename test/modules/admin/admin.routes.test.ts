import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'

describe('GET /v1/admin/stats', () => {
  test('counts users, clients, devices, keys and the database size, plus registered providers', async () => {
    const t = testApp()
    const op = await createTenant(t, { role: 'admin' })
    await createTenant(t)
    t.modules.admin.stats.push(() => ({ metric_rows: 42, ingest_last_hour: 7 }))
    t.modules.admin.stats.push(() => {
      throw new Error('broken provider')
    })
    const res = await t.request('GET', '/v1/admin/stats', { headers: op.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ users: 2, operators: 1, clients: 2, devices: 0, api_keys: 2, metric_rows: 42, ingest_last_hour: 7 })
    expect(res.body.database_bytes).toBeGreaterThan(0)
    expect(t.logs.some((l) => l.includes('stat provider failed'))).toBe(true)
  })

  test('a non-operator is 403 (anonymous 401 is in the access matrix)', async () => {
    const t = testApp()
    const u = await createTenant(t)
    const res = await t.request('GET', '/v1/admin/stats', { headers: u.userHeaders })
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('forbidden')
  })
})

describe('GET /v1/admin/clients', () => {
  test('pages through every client with its usage; limit default 100, bounds 1..1000', async () => {
    const t = testApp()
    const op = await createTenant(t, { role: 'admin' })
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1)
      await createTenant(t)
    }
    const all = await t.request('GET', '/v1/admin/clients', { headers: op.userHeaders })
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({ total: 4, limit: 100, offset: 0 })
    expect(all.body.items[0]).toMatchObject({
      client_id: op.clientId,
      plan_type: 'free',
      rate_limit: null,
      usage: { devices: 0, members: 1, api_keys: 1 },
      owner_email: op.email,
    })
    const page = await t.request('GET', '/v1/admin/clients?limit=2&offset=1', { headers: op.userHeaders })
    expect(page.body.items.length).toBe(2)
    expect(page.body.items[0].client_id).toBe(all.body.items[1].client_id)
    for (const q of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc']) {
      const bad = await t.request('GET', `/v1/admin/clients?${q}`, { headers: op.userHeaders })
      expect(bad.status).toBe(422)
      expect(bad.body.detail[0].loc).toEqual(['query', q.split('=')[0]])
    }
    expect((await t.request('GET', '/v1/admin/clients?limit=1000', { headers: op.userHeaders })).status).toBe(200)
  })
})

describe('PATCH /v1/admin/clients/{client_id}', () => {
  test('sets limits by hand; a plan change brings the plan limits; the rate limit bites at once', async () => {
    const t = testApp()
    const op = await createTenant(t, { role: 'admin' })
    const c = await createTenant(t)
    // warm the rate-limit cache for c
    await t.request('GET', '/v1/clients/me', { headers: c.userHeaders })
    const res = await t.request('PATCH', `/v1/admin/clients/${c.clientId}`, { headers: op.userHeaders, body: { max_devices: 25, rate_limit: 5 } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ client_id: c.clientId, max_devices: 25, plan_type: 'free', rate_limit: 5 })
    const next = await t.request('GET', '/v1/clients/me', { headers: c.userHeaders })
    expect(next.headers.get('x-ratelimit-limit')).toBe('5')
    expect(next.body.max_devices).toBe(25)

    const plan = await t.request('PATCH', `/v1/admin/clients/${c.clientId}`, { headers: op.userHeaders, body: { plan_type: 'b2b_monthly', rate_limit: null } })
    expect(plan.body).toMatchObject({ plan_type: 'b2b_monthly', max_devices: 100, max_users: 500, rate_limit: null })
    expect((await t.request('GET', '/v1/clients/me', { headers: c.userHeaders })).headers.get('x-ratelimit-limit')).toBe('6000')
  })

  test('unknown plan is 400 invalid_parameter, bad bounds 422, unknown client 404, non-operator 403', async () => {
    const t = testApp()
    const op = await createTenant(t, { role: 'admin' })
    const c = await createTenant(t)
    const unknown = await t.request('PATCH', `/v1/admin/clients/${c.clientId}`, { headers: op.userHeaders, body: { plan_type: 'platinum' } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', param: 'plan_type' })
    expect((await t.request('PATCH', `/v1/admin/clients/${c.clientId}`, { headers: op.userHeaders, body: { max_devices: -1 } })).status).toBe(422)
    expect((await t.request('PATCH', `/v1/admin/clients/${c.clientId}`, { headers: op.userHeaders, body: { max_users: 0 } })).status).toBe(422)
    expect((await t.request('PATCH', '/v1/admin/clients/cli_nope', { headers: op.userHeaders, body: { max_devices: 2 } })).status).toBe(404)
    expect((await t.request('PATCH', `/v1/admin/clients/${op.clientId}`, { headers: c.userHeaders, body: { max_devices: 99 } })).status).toBe(403)
  })
})

describe('GET /v1/admin/instance', () => {
  const own = { maxDevices: 20, maxUsers: 5, rateLimit: 600 }

  test('shows the mode, the sign-up policy and where they come from, read-only', async () => {
    const t = testApp({ config: { host: '127.0.0.1' } })
    const op = await createTenant(t, { role: 'admin' })
    const res = await t.request('GET', '/v1/admin/instance', { headers: op.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      mode: 'service',
      signup: 'open',
      signup_configured: false,
      billing_configured: false,
      site_url: 'http://localhost:8080',
      site_url_warning: null,
      own_limits: null,
      outbound_allow_private: false,
      ai_default_provider: 'rules',
    })
  })

  test('an own instance with VIGIL_SIGNUP=closed and billing keys says so', async () => {
    const base = testApp().ctx.config
    const t = testApp({
      config: { instance: { mode: 'own', signup: 'closed', own }, stripe: { ...base.stripe, secretKey: 'sk_test_x' }, outbound: { allowPrivate: true } },
    })
    const op = await createTenant(t, { role: 'admin' })
    const res = await t.request('GET', '/v1/admin/instance', { headers: op.userHeaders })
    expect(res.body).toMatchObject({
      mode: 'own',
      signup: 'closed',
      signup_configured: true,
      billing_configured: true,
      own_limits: { max_devices: 20, max_users: 5, rate_limit: 600 },
      outbound_allow_private: true,
    })
  })

  test('a non-operator is 403', async () => {
    const t = testApp()
    const u = await createTenant(t)
    expect((await t.request('GET', '/v1/admin/instance', { headers: u.userHeaders })).status).toBe(403)
  })

  test('a loopback site URL while others reach the service is flagged, with the setting to change', async () => {
    for (const listener of [{ host: '0.0.0.0' }, { host: '127.0.0.1', trustProxy: true }]) {
      const t = testApp({ config: { ...listener, siteUrl: 'http://localhost:8080' } })
      const op = await createTenant(t, { role: 'admin' })
      const res = await t.request('GET', '/v1/admin/instance', { headers: op.userHeaders })
      expect(res.body.site_url_warning).toContain('VIGIL_SITE_URL')
    }
    const public_ = testApp({ config: { host: '0.0.0.0', siteUrl: 'https://vigil.example.com' } })
    const op = await createTenant(public_, { role: 'admin' })
    expect((await public_.request('GET', '/v1/admin/instance', { headers: op.userHeaders })).body.site_url_warning).toBeNull()
  })
})
