import { describe, expect, test } from 'bun:test'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { createTenant } from '../../helpers/fixtures'
import { insertDeviceOn } from '../../helpers/devices'

/** The fleet overview on a hub on PostgreSQL: it reads the other domains through their services only. */
const pgApp = pgTestAppLifecycle()

describe('GET /v1/clients/me/fleet on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(`lists the account's devices with their status, and no other account's ${pgApp.skipReason}`, async () => {
    const t = await pgApp.make()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const mine = await insertDeviceOn(t, a.clientId, { hostname: 'web-1' })
    await insertDeviceOn(t, b.clientId, { hostname: 'theirs' })
    const res = await t.request('GET', '/v1/clients/me/fleet', { headers: a.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body.devices.map((d: { id: string; hostname: string }) => [d.id, d.hostname])).toEqual([[mine, 'web-1']])
    expect(res.body).toMatchObject({ checks_down: 0 })
    expect(res.body.devices[0]).toMatchObject({ alerts_firing: 0, cpu_percent: null })
  })
})
