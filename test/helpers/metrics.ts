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

/**
 * Every device of `a` posts its body (`body(i)` for the i-th device) to POST /v1/metrics/batch,
 * all at once, so they share group commits as collectors under load do; the answers in order.
 */
export function postEach(t: TestApp, a: { keyHeaders: Record<string, string>; deviceIds: string[] }, body: (device: number) => string) {
  return Promise.all(
    a.deviceIds.map((id, i) =>
      t.handle(
        new Request('http://localhost/v1/metrics/batch', {
          method: 'POST',
          headers: { ...a.keyHeaders, 'x-device-id': id, 'content-type': 'application/json' },
          body: body(i),
        }),
      ),
    ),
  )
}
