import { describe, expect, test } from 'bun:test'
import { type PgDeviceDirectory, pgDeviceDirectory, sqliteDeviceDirectory } from '../../../src/modules/devices/devices.directory'
import { type DevicesDeps, knownDeviceFirst, resolveDevice } from '../../../src/modules/devices/devices.service'
import { sqliteDevices } from '../../../src/modules/devices/devices.store'
import { createDevicesStorePg } from '../../../src/modules/devices/devices.store.pg'
import { openDatabase } from '../../../src/db/connection'
import { testApp } from '../../helpers/app'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { pgTenant } from '../../helpers/fleet.pg'

/**
 * Hubs on one PostgreSQL database with no link between them: a device registered on one is a
 * device the others' ingest has not heard of, and must not refuse.
 */
const pgApp = pgTestAppLifecycle()
const machine = (fingerprint: string) => ({ hostname: `host-${fingerprint}`, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint })

describe('the ingest of a hub on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(
    `takes a collector's post for a device registered on another hub a moment ago; another tenant's or an unknown device is still 404 ${pgApp.skipReason}`,
    async () => {
      const a = await pgApp.make()
      const hub = () => testApp({ pg: a.sql, clock: a.clock })
      const tenant = await pgTenant(a, { maxDevices: 5 })
      const other = await pgTenant(a)
      // the other hubs have read every device before this one is registered
      const [b, c, d, e, f] = [hub(), hub(), hub(), hub(), hub()] as const
      for (const t of [b, c, d, e, f]) await (t.modules.devices.directory as PgDeviceDirectory).ready()
      const reg = await a.request('POST', '/v1/clients/me/devices', { body: machine('fp-1'), headers: tenant.keyHeaders })
      expect(reg.status).toBe(201)
      const id = reg.body.device_id as string
      const post = (t: typeof b, headers: Record<string, string>, body: Record<string, unknown>) =>
        t.request('POST', '/v1/recommendations', { headers, body: { recommendation: 'add swap', ...body } })

      // named in the body, by the header, and as the client's only device: each on a hub that heard nothing
      const inBody = await post(c, tenant.keyHeaders, { device_id: id })
      expect([inBody.status, inBody.body.device_id]).toEqual([201, id])
      const byHeader = await post(d, { ...tenant.keyHeaders, 'x-device-id': id }, {})
      expect([byHeader.status, byHeader.body.device_id]).toEqual([201, id])
      const only = await post(b, tenant.keyHeaders, {})
      expect([only.status, only.body.device_id]).toEqual([201, id])
      // the hub's other reads know it from then on
      expect(b.modules.devices.directory.byId(tenant.clientId, id)?.hostname).toBe('host-fp-1')

      expect((await post(e, other.keyHeaders, { device_id: id })).status).toBe(404)
      expect((await post(f, tenant.keyHeaders, { device_id: 'dev_nope' })).status).toBe(404)
      const [{ n }] = await a.sql`SELECT count(*)::int AS n FROM recommendations WHERE client_id = ${tenant.clientId}`
      expect(n).toBe(3)
    },
  )

  test.skipIf(pgApp.skip)(
    `the metrics' ingest routes resolve a device made on another hub; on SQLite they are left as they are ${pgApp.skipReason}`,
    async () => {
      const a = await pgApp.make()
      const tenant = await pgTenant(a)
      const id = (await a.request('POST', '/v1/clients/me/devices', { body: machine('fp-2'), headers: tenant.keyHeaders })).body.device_id as string
      const store = createDevicesStorePg(a.sql)
      const directory = pgDeviceDirectory({ sql: a.sql, store })
      await directory.ready()
      directory.forget(tenant.clientId, id) // as if this hub had read the devices before the registration
      const deps = { directory } as unknown as DevicesDeps
      const key = { clientId: tenant.clientId, deviceId: null }
      const route = {
        handle: (input: { key: typeof key; body: unknown; request: Request }) =>
          resolveDevice(deps, input.key, (input.body as { device_id?: string }).device_id).id,
      }
      expect(() => route.handle({ key, body: { device_id: id }, request: new Request('http://hub/') })).toThrow('Device not found')
      const [wrapped] = knownDeviceFirst(deps, [route])
      expect(await wrapped!.handle({ key, body: { device_id: id }, request: new Request('http://hub/') })).toBe(id)
      const byHeader = new Request('http://hub/', { headers: { 'x-device-id': id } })
      expect(await wrapped!.handle({ key, body: {}, request: byHeader })).toBe(id)
      await directory.stop()

      const sqlite = openDatabase(':memory:').sqlite
      const routes = [route]
      expect(knownDeviceFirst({ directory: sqliteDeviceDirectory(sqliteDevices(sqlite)) }, routes)).toBe(routes)
    },
  )
})
