import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'
import { testConfig, type Config } from '../../../src/config'

const base = testConfig().instance
const own = (limits: Partial<Config['instance']['own']> = {}) => testApp({ config: { instance: { ...base, mode: 'own', own: { ...base.own, ...limits } } } })

const addDevice = (t: TestApp, key: Record<string, string>, n: number) =>
  t.request('POST', '/v1/clients/me/devices', {
    headers: key,
    body: { hostname: `host-${n}`, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: `fp-${n}` },
  })

describe('own instance: the operator sets the limits', () => {
  test('a client on the free plan gets the own-instance limits: many devices, generous rate', async () => {
    const t = own()
    const a = await createTenant(t) // stored as the spec's defaults: free plan, one device
    const me = await t.request('GET', '/v1/clients/me', { headers: a.userHeaders })
    expect(me.body).toMatchObject({ plan_type: 'free', max_devices: 1000, max_users: 1000 })
    for (const n of [1, 2, 3]) expect((await addDevice(t, a.keyHeaders, n)).status).toBe(201)
    expect(me.headers.get('x-ratelimit-limit')).toBe('12000')
  })

  test('an instance upgraded with clients stored at one device gets the new limits without a migration', async () => {
    const t = own({ maxDevices: 5, maxUsers: 7, rateLimit: 900 })
    const a = await createTenant(t, { maxDevices: 1, maxUsers: 50 })
    const me = await t.request('GET', '/v1/clients/me', { headers: a.userHeaders })
    expect(me.body).toMatchObject({ max_devices: 5, max_users: 7 })
    expect(me.headers.get('x-ratelimit-limit')).toBe('900')
    for (const n of [1, 2, 3, 4, 5]) expect((await addDevice(t, a.keyHeaders, n)).status).toBe(201)
    const sixth = await addDevice(t, a.keyHeaders, 6)
    expect(sixth.status).toBe(403)
    expect(sixth.body.error.code).toBe('device_limit_reached')
  })

  test("the operator's per-client override wins over the own-instance limits", async () => {
    const t = own()
    const op = await createTenant(t, { role: 'admin' })
    const a = await createTenant(t)
    const patched = await t.request('PATCH', `/v1/admin/clients/${a.clientId}`, { headers: op.userHeaders, body: { max_devices: 2, rate_limit: 30 } })
    expect(patched.status).toBe(200)
    expect(patched.body.max_devices).toBe(2)
    for (const n of [1, 2]) expect((await addDevice(t, a.keyHeaders, n)).status).toBe(201)
    expect((await addDevice(t, a.keyHeaders, 3)).body.error.code).toBe('device_limit_reached')
    const me = await t.request('GET', '/v1/clients/me', { headers: a.userHeaders })
    expect(me.headers.get('x-ratelimit-limit')).toBe('30')
    // cleared: the own-instance limit applies again
    await t.request('PATCH', `/v1/admin/clients/${a.clientId}`, { headers: op.userHeaders, body: { max_devices: null } })
    expect((await t.request('GET', '/v1/clients/me', { headers: a.userHeaders })).body.max_devices).toBe(1000)
  })

  test('the operator sees the limits in force in the client list', async () => {
    const t = own({ maxDevices: 40 })
    const op = await createTenant(t, { role: 'admin' })
    const list = await t.request('GET', '/v1/admin/clients', { headers: op.userHeaders })
    expect(list.body.items.map((c: { max_devices: number }) => c.max_devices)).toEqual([40])
  })

  test("a client on a plan the operator assigned keeps that plan's limits", async () => {
    const t = own()
    const a = await createTenant(t, { plan: 'b2c_monthly', maxDevices: 10 })
    const me = await t.request('GET', '/v1/clients/me', { headers: a.userHeaders })
    expect(me.body).toMatchObject({ plan_type: 'b2c_monthly', max_devices: 10 })
    expect(me.headers.get('x-ratelimit-limit')).toBe('600')
  })
})

describe('service: the plans apply', () => {
  test("a new client gets the spec's defaults: one device, 50 members, 60 requests a minute", async () => {
    const t = testApp({ config: { instance: { ...base, mode: 'service' } } })
    const reg = await t.request('POST', '/v1/auth/register', { body: { email: 'a@example.test', password: 'correct horse battery' } })
    expect(reg.status).toBe(201)
    const login = await t.request('POST', '/v1/auth/login', { body: { email: 'a@example.test', password: 'correct horse battery' } })
    const me = await t.request('GET', '/v1/clients/me', { headers: { authorization: `Bearer ${login.body.access_token}` } })
    expect(me.body).toMatchObject({ plan_type: 'free', max_devices: 1, max_users: 50 })
    expect(me.headers.get('x-ratelimit-limit')).toBe('60')
  })
})
