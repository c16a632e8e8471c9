import { describe, expect, test } from 'bun:test'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { pgTenant } from '../../helpers/fleet.pg'

/** The devices' and API keys' routes on a hub whose stores are on PostgreSQL. */
const pgApp = pgTestAppLifecycle()
const machine = (fingerprint: string, hostname = `host-${fingerprint}`) => ({ hostname, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint })

describe('devices and API keys on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(`a collector registers its device; the portal lists, reads and renames it; another tenant gets 404 ${pgApp.skipReason}`, async () => {
    const t = await pgApp.make()
    const a = await pgTenant(t, { maxDevices: 2 })
    const b = await pgTenant(t)
    const reg = await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-1'), headers: a.keyHeaders })
    expect(reg.status).toBe(201)
    const id = reg.body.device_id as string
    expect((await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-1', 'renamed-host'), headers: a.keyHeaders })).body.device_id).toBe(id)
    const [row] = await t.sql`SELECT hostname, client_id FROM devices WHERE id = ${id}`
    expect(row).toEqual({ hostname: 'renamed-host', client_id: a.clientId })

    const list = await t.request('GET', '/v1/clients/me/devices', { headers: a.userHeaders })
    expect(list.status).toBe(200)
    expect(list.body.map((d: { device_id: string }) => d.device_id)).toEqual([id])
    expect((await t.request('GET', `/v1/clients/me/devices/${id}`, { headers: a.userHeaders })).body).toMatchObject({ device_id: id, hostname: 'renamed-host' })
    const named = await t.request('PATCH', `/v1/clients/me/devices/${id}`, { body: { name: 'db primary', tags: ['prod'] }, headers: a.userHeaders })
    expect(named.status).toBe(200)
    expect(named.body).toMatchObject({ name: 'db primary', tags: ['prod'] })

    expect((await t.request('GET', `/v1/clients/me/devices/${id}`, { headers: b.userHeaders })).status).toBe(404)
    expect((await t.request('PATCH', `/v1/clients/me/devices/${id}`, { body: { name: 'x' }, headers: b.userHeaders })).status).toBe(404)
    expect((await t.request('DELETE', `/v1/clients/me/devices/${id}`, { headers: b.userHeaders })).status).toBe(404)
    expect((await t.request('GET', '/v1/clients/me/devices', { headers: b.userHeaders })).body).toEqual([])

    // the plan's limit: a second machine fits, a third does not
    expect((await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-2'), headers: a.keyHeaders })).status).toBe(201)
    const over = await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-3'), headers: a.keyHeaders })
    expect(over.status).toBe(403)
    expect(over.body.error.code).toBe('device_limit_reached')
    const [n] = await t.sql`SELECT count(*)::int AS n FROM devices WHERE client_id = ${a.clientId}`
    expect(n.n).toBe(2)
  })

  test.skipIf(pgApp.skip)(
    `deleting a device revokes the keys bound to it, which are refused at once; the client's other keys live on ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make()
      const a = await pgTenant(t, { maxDevices: 3 })
      const id = (await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-1'), headers: a.keyHeaders })).body.device_id as string
      const bound = await t.request('POST', '/v1/auth/api-keys', { body: { name: 'bound', device_id: id }, headers: a.userHeaders })
      expect(bound.status).toBe(201)
      const boundHeaders = { 'x-api-key': bound.body.api_key as string }
      // used once, so its principal is in the hub's cache
      expect((await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-1'), headers: boundHeaders })).status).toBe(201)

      expect((await t.request('DELETE', `/v1/clients/me/devices/${id}`, { headers: a.userHeaders })).status).toBe(204)
      expect((await t.request('GET', `/v1/clients/me/devices/${id}`, { headers: a.userHeaders })).status).toBe(404)
      const rows = await t.sql`SELECT id, is_active FROM api_keys WHERE client_id = ${a.clientId} ORDER BY id`
      expect(rows.find((r: { id: string }) => r.id === bound.body.key_id).is_active).toBe(false)
      expect(rows.find((r: { id: string }) => r.id === a.keyId).is_active).toBe(true)
      expect((await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-1'), headers: boundHeaders })).status).toBe(401)
      expect((await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-9'), headers: a.keyHeaders })).status).toBe(201)
      expect((await t.request('DELETE', `/v1/clients/me/devices/${id}`, { headers: a.userHeaders })).status).toBe(404)
    },
  )

  test.skipIf(pgApp.skip)(
    `API keys: made (shown once, stored as a hash), listed, revoked and refused at once; another tenant's is 404 ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make()
      const a = await pgTenant(t)
      const b = await pgTenant(t)
      const made = await t.request('POST', '/v1/auth/api-keys', { body: { name: 'second' }, headers: a.userHeaders })
      expect(made.status).toBe(201)
      expect(made.body).toMatchObject({ name: 'second', is_active: true, scopes: ['metrics:write', 'recommendations:write'] })
      const [stored] = await t.sql`SELECT key_hash FROM api_keys WHERE id = ${made.body.key_id}`
      expect(stored.key_hash).not.toContain(made.body.api_key)
      const list = await t.request('GET', '/v1/auth/api-keys', { headers: a.userHeaders })
      // newest first: the one made here, the tenant's collector key, and the key its fixture made
      const listed = list.body.map((k: { key_id: string; api_key: string | null }) => [k.key_id, k.api_key])
      expect(listed.slice(0, 2)).toEqual([
        [made.body.key_id, null],
        [a.keyId, null],
      ])
      expect(listed).toHaveLength(3)
      const headers = { 'x-api-key': made.body.api_key as string }
      expect((await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-1'), headers })).status).toBe(201)

      expect((await t.request('DELETE', `/v1/auth/api-keys/${made.body.key_id}`, { headers: b.userHeaders })).status).toBe(404)
      expect((await t.request('DELETE', `/v1/auth/api-keys/${made.body.key_id}`, { headers: a.userHeaders })).status).toBe(204)
      expect((await t.request('POST', '/v1/clients/me/devices', { body: machine('fp-1'), headers })).status).toBe(401)
      const after = await t.request('GET', '/v1/auth/api-keys', { headers: a.userHeaders })
      expect(after.body.find((k: { key_id: string }) => k.key_id === made.body.key_id).is_active).toBe(false)
      expect((await t.request('GET', '/v1/auth/api-keys', { headers: b.userHeaders })).body.map((k: { key_id: string }) => k.key_id)).toContain(b.keyId)
      expect((await t.request('GET', '/v1/auth/api-keys', { headers: b.userHeaders })).body.map((k: { key_id: string }) => k.key_id)).not.toContain(
        made.body.key_id,
      )
      expect((await t.request('POST', '/v1/auth/api-keys', { body: { name: '' }, headers: a.userHeaders })).status).toBe(422)
    },
  )
})
