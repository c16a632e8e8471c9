import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { createKey, createTenant } from '../../helpers/fixtures'

const register = (t: TestApp, headers: Record<string, string>, fingerprint: string) =>
  t.request('POST', '/v1/clients/me/devices', { body: { fingerprint, hostname: fingerprint, os: 'linux', os_version: '6.8', arch: 'x86_64' }, headers })

describe('deleting a device revokes the keys bound to it', () => {
  test('the bound key can no longer post, register or recommend; other keys are untouched', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 5 })
    const gone = (await register(t, a.keyHeaders, 'gone')).body.device_id as string
    const other = (await register(t, a.keyHeaders, 'other')).body.device_id as string
    const bound = createKey(t, a.clientId, { deviceId: gone })
    const boundElsewhere = createKey(t, a.clientId, { deviceId: other })
    // cached by the verifier before the delete: the revocation must still bite at once
    expect((await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: bound.headers })).status).toBe(201)

    expect((await t.request('DELETE', `/v1/clients/me/devices/${gone}`, { headers: a.userHeaders })).status).toBe(204)

    const asOrphan = [
      await t.request('POST', '/v1/metrics/hardware', { body: { device_id: other }, headers: bound.headers }),
      await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: bound.headers }),
      await register(t, bound.headers, 'new-machine'),
      await t.request('POST', '/v1/recommendations', { body: { recommendation: 'x', device_id: other }, headers: bound.headers }),
    ]
    expect(asOrphan.map((r) => r.status)).toEqual([401, 401, 401, 401])

    const keys = (await t.request('GET', '/v1/auth/api-keys', { headers: a.userHeaders })).body as { key_id: string; is_active: boolean }[]
    expect(keys.find((k) => k.key_id === bound.keyId)!.is_active).toBe(false)
    expect(keys.find((k) => k.key_id === boundElsewhere.keyId)!.is_active).toBe(true)
    expect((await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: boundElsewhere.headers })).status).toBe(201)
    expect((await t.request('POST', '/v1/metrics/hardware', { body: { device_id: other }, headers: a.keyHeaders })).status).toBe(201)
  })

  test('another tenant cannot delete the device, so its keys stay active', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const dev = (await register(t, a.keyHeaders, 'mine')).body.device_id as string
    const bound = createKey(t, a.clientId, { deviceId: dev })
    expect((await t.request('DELETE', `/v1/clients/me/devices/${dev}`, { headers: b.userHeaders })).status).toBe(404)
    expect((await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: bound.headers })).status).toBe(201)
  })
})
