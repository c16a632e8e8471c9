import { afterEach, describe, expect, test } from 'bun:test'
import { createTenant } from '../../helpers/fixtures'
import { billingApp, clientRow, stopFakes } from './billing.setup'

afterEach(stopFakes)

describe("an operator's limits survive billing", () => {
  test('checkout then sync (no subscription) cannot undo them; clearing one gives the plan its say again', async () => {
    const { t } = billingApp()
    const op = await createTenant(t, { role: 'admin' })
    const ten = await createTenant(t, { maxDevices: 5 })
    // The operator throttles the tenant below its plan.
    const patched = await t.request('PATCH', `/v1/admin/clients/${ten.clientId}`, {
      headers: op.userHeaders,
      body: { max_devices: 0, max_users: 2, rate_limit: 5 },
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ max_devices: 0, max_users: 2, rate_limit: 5, max_devices_override: 0, max_users_override: 2 })

    expect((await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan: 'b2c_monthly' } })).status).toBe(200)
    const sync = await t.request('POST', '/v1/billing/sync', { headers: ten.userHeaders })
    expect(sync.status).toBe(200)
    expect(clientRow(t, ten.clientId)).toEqual({ plan_type: 'free', subscription_status: 'none', max_devices: 0, max_users: 2 })
    const reg = await t.request('POST', '/v1/clients/me/devices', {
      headers: ten.keyHeaders,
      body: { fingerprint: 'f', hostname: 'h', os: 'linux', os_version: '6', arch: 'x86_64' },
    })
    expect(reg.status).toBe(403)
    expect(reg.headers.get('x-ratelimit-limit')).toBe('5')

    // null clears an override: the plan's limit is back, the other override stays.
    const cleared = await t.request('PATCH', `/v1/admin/clients/${ten.clientId}`, { headers: op.userHeaders, body: { max_devices: null } })
    expect(cleared.body).toMatchObject({ max_devices: 1, max_devices_override: null, max_users: 2, max_users_override: 2 })
    await t.request('POST', '/v1/billing/sync', { headers: ten.userHeaders })
    expect(clientRow(t, ten.clientId)).toMatchObject({ max_devices: 1, max_users: 2 })
  })
})
