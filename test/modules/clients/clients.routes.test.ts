import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { addMember, createTenant } from '../../helpers/fixtures'

describe('GET /v1/clients/me', () => {
  test('returns the caller client in the ClientResponse shape', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 3 })
    const res = await t.request('GET', '/v1/clients/me', { headers: a.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      client_id: a.clientId,
      name: expect.any(String),
      platform: null,
      plan_type: 'free',
      subscription_status: 'none',
      max_devices: 3,
      max_users: 50,
      billing_email: null,
      created_at: new Date(t.clock.now()).toISOString(),
    })
  })
})

describe('PATCH /v1/clients/me', () => {
  test('changes name and billing_email only; plan, limits and ids in the body are never applied', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const res = await t.request('PATCH', '/v1/clients/me', {
      headers: a.userHeaders,
      body: {
        name: 'New name',
        billing_email: 'Billing@Example.test',
        plan_type: 'b2b_yearly',
        max_devices: 999,
        max_users: 999,
        client_id: 'cli_evil',
        subscription_status: 'active',
      },
    })
    expect([200, 422]).toContain(res.status)
    const now = (await t.request('GET', '/v1/clients/me', { headers: a.userHeaders })).body
    expect(now).toMatchObject({ client_id: a.clientId, plan_type: 'free', max_devices: 1, max_users: 50, subscription_status: 'none' })
    expect(res.status).toBe(200)
    expect(now).toMatchObject({ name: 'New name', billing_email: 'billing@example.test' })
  })

  test('fields may be cleared with null; a bad email is 422', async () => {
    const t = testApp()
    const a = await createTenant(t)
    await t.request('PATCH', '/v1/clients/me', { headers: a.userHeaders, body: { billing_email: 'b@example.test' } })
    const cleared = await t.request('PATCH', '/v1/clients/me', { headers: a.userHeaders, body: { billing_email: null } })
    expect(cleared.body.billing_email).toBeNull()
    const bad = await t.request('PATCH', '/v1/clients/me', { headers: a.userHeaders, body: { billing_email: 'nope' } })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['body', 'billing_email'])
    expect((await t.request('PATCH', '/v1/clients/me', { headers: a.userHeaders, body: { name: 'x'.repeat(201) } })).status).toBe(422)
  })

  test('members (read-only) may not change the client', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const m = await addMember(t, a.clientId, 'member')
    expect((await t.request('PATCH', '/v1/clients/me', { headers: m.headers, body: { name: 'x' } })).status).toBe(403)
    expect((await t.request('GET', '/v1/clients/me', { headers: m.headers })).status).toBe(200)
  })
})
