import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'
import { hardwareSample } from '../../helpers/samples'

/**
 * A device's `status` in GET /v1/clients/me/devices(/{id}) follows the same rule as the fleet
 * overview: measured against the device's own reporting interval, not a fixed window.
 */
describe("a device's status, by its own interval, in every answer", () => {
  async function reportingEvery(t: TestApp, ms: number, samples: number) {
    const a = await createTenant(t)
    const reg = await t.request('POST', '/v1/clients/me/devices', {
      headers: a.keyHeaders,
      body: { hostname: 'fast', os: 'linux', os_version: '6.6', arch: 'x86_64', fingerprint: 'fp-fast' },
    })
    expect(reg.status).toBe(201)
    for (let i = 0; i < samples; i++) {
      if (i) t.clock.advance(ms)
      const r = await t.request('POST', '/v1/metrics/hardware', { headers: a.keyHeaders, body: hardwareSample(i) })
      expect(r.status).toBe(201)
    }
    return { a, deviceId: reg.body.device_id as string }
  }

  async function statuses(t: TestApp, headers: Record<string, string>, deviceId: string) {
    const one = await t.request('GET', `/v1/clients/me/devices/${deviceId}`, { headers })
    const list = await t.request('GET', '/v1/clients/me/devices', { headers })
    const fleet = await t.request('GET', '/v1/clients/me/fleet', { headers })
    return {
      device: one.body.status,
      list: list.body.find((d: { device_id: string }) => d.device_id === deviceId).status,
      fleet: fleet.body.devices.find((d: { id: string }) => d.id === deviceId).status,
    }
  }

  test('a device reporting every 2 s: online just after a sample, stale after 3 missed, offline after 6, as the fleet overview says', async () => {
    const t = testApp()
    const { a, deviceId } = await reportingEvery(t, 2000, 6)
    const all = (s: string) => ({ device: s, list: s, fleet: s })

    t.clock.advance(1000)
    expect(await statuses(t, a.userHeaders, deviceId)).toEqual(all('online'))
    t.clock.advance(5000) // 6 s since the last sample: 3 intervals
    expect(await statuses(t, a.userHeaders, deviceId)).toEqual(all('stale'))
    t.clock.advance(6000) // 12 s: 6 intervals
    expect(await statuses(t, a.userHeaders, deviceId)).toEqual(all('offline'))
  })

  test('a device that reports every 200 s is online between its reports', async () => {
    const t = testApp()
    const { a, deviceId } = await reportingEvery(t, 200_000, 3)
    t.clock.advance(350_000)
    const s = await statuses(t, a.userHeaders, deviceId)
    expect(s).toEqual({ device: 'online', list: 'online', fleet: 'online' })
  })

  test('a device that never reported is "never", not "offline"', async () => {
    const t = testApp()
    const { a, deviceId } = await reportingEvery(t, 1000, 0)
    expect(await statuses(t, a.userHeaders, deviceId)).toEqual({ device: 'never', list: 'never', fleet: 'never' })
  })
})
