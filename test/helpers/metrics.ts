import type { TestApp } from './app'
import { createTenant } from './fixtures'

/** A tenant with `devices` registered devices (through the API, like a collector). */
export async function tenantWithDevices(t: TestApp, devices = 1) {
  const tenant = await createTenant(t, { maxDevices: Math.max(devices, 1) })
  const ids: string[] = []
  for (let i = 0; i < devices; i++) {
    const r = await t.request('POST', '/v1/clients/me/devices', {
      body: { hostname: `h${i}`, os: 'linux', os_version: '6', arch: 'arm64', fingerprint: `fp-${i}` },
      headers: tenant.keyHeaders,
    })
    if (r.status !== 201) throw new Error(`device registration failed: ${r.status}`)
    ids.push(r.body.device_id)
  }
  return { ...tenant, deviceIds: ids, deviceId: ids[0]! }
}
