import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { addMember, createTenant } from '../../helpers/fixtures'
import { newId } from '../../../src/lib/ids'

function insertDevice(t: TestApp, clientId: string) {
  const id = newId('dev')
  t.db.sqlite.run('INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [
    id,
    clientId,
    id,
    t.clock.now(),
    t.clock.now(),
  ])
  return id
}

/** A key route every default key may call: 404 (no version yet) means the key was accepted. */
const useKey = (t: TestApp, headers: Record<string, string>) => t.request('GET', '/v1/versions/linux', { headers })

describe('POST /v1/auth/api-keys', () => {
  test('201 with the full key once, the spec default scopes and a recognisable prefix', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const res = await t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body: { name: 'collector' } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      name: 'collector',
      scopes: ['metrics:write', 'recommendations:write'],
      is_active: true,
      last_used_at: null,
      expires_at: null,
    })
    expect(res.body.api_key).toMatch(/^vk_[0-9A-Za-z]{46}$/)
    expect(res.body.key_prefix).toBe(res.body.api_key.slice(0, 12))
    expect((await useKey(t, { 'x-api-key': res.body.api_key })).status).toBe(404)
    expect((await useKey(t, { authorization: `Bearer ${res.body.api_key}` })).status).toBe(404)
    // never again: not in the list, not in the database, not in the logs
    const list = await t.request('GET', '/v1/auth/api-keys', { headers: a.userHeaders })
    expect(list.text).not.toContain(res.body.api_key)
    expect(list.body.find((k: any) => k.key_id === res.body.key_id).api_key).toBeNull()
    const stored = t.db.sqlite.query<{ key_hash: string }, [string]>('SELECT key_hash FROM api_keys WHERE id = ?').get(res.body.key_id)!
    expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(t.logs.join('\n')).not.toContain(res.body.api_key)
  })

  test('name 1..100, known scopes only (422), duplicates dropped', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const post = (body: unknown) => t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body })
    expect((await post({ name: '' })).status).toBe(422)
    const long = await post({ name: 'x'.repeat(101) })
    expect(long.status).toBe(422)
    expect(long.body.detail[0].loc).toEqual(['body', 'name'])
    expect((await post({ name: 'x'.repeat(100) })).status).toBe(201)
    expect((await post({})).status).toBe(422)
    const unknown = await post({ name: 'k', scopes: ['metrics:write', 'admin:all'] })
    expect(unknown.status).toBe(422)
    expect(unknown.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'scopes'])
    const ok = await post({ name: 'k', scopes: ['devices:write', 'versions:read', 'devices:write'] })
    expect(ok.status).toBe(201)
    expect(ok.body.scopes).toEqual(['devices:write', 'versions:read'])
  })

  test('device_id binds the key to a device of the client; another tenant device is 404', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const mine = insertDevice(t, a.clientId)
    const theirs = insertDevice(t, b.clientId)
    const ok = await t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body: { name: 'k', device_id: mine } })
    expect(ok.status).toBe(201)
    expect(ok.body.device_id).toBe(mine)
    expect(await t.modules.apiKeys.verifier.verify(ok.body.api_key)).toMatchObject({ kind: 'key', deviceId: mine, clientId: a.clientId })
    const other = await t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body: { name: 'k', device_id: theirs } })
    expect(other.status).toBe(404)
  })

  test('expires_at is enforced: the key works until then and is 401 after', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const expiresAt = new Date(t.clock.now() + 3600_000).toISOString()
    const res = await t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body: { name: 'k', expires_at: expiresAt } })
    expect(res.status).toBe(201)
    expect(res.body.expires_at).toBe(expiresAt)
    const past = await t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body: { name: 'k', expires_at: '2020-01-01T00:00:00Z' } })
    expect(past.status).toBe(400)
    expect(past.body.error).toMatchObject({ code: 'invalid_parameter', param: 'expires_at' })
    expect((await t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body: { name: 'k', expires_at: 'soon' } })).status).toBe(422)
    expect((await useKey(t, { 'x-api-key': res.body.api_key })).status).toBe(404)
    t.clock.advance(3600_000)
    const expired = await useKey(t, { 'x-api-key': res.body.api_key })
    expect(expired.status).toBe(401)
    expect(expired.body.error.message).toContain('expired')
  })

  test('only owners and admins create keys; members may list them', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const admin = await addMember(t, a.clientId, 'admin')
    const member = await addMember(t, a.clientId, 'member')
    expect((await t.request('POST', '/v1/auth/api-keys', { headers: admin.headers, body: { name: 'k' } })).status).toBe(201)
    const denied = await t.request('POST', '/v1/auth/api-keys', { headers: member.headers, body: { name: 'k' } })
    expect(denied.status).toBe(403)
    expect(denied.body.error.code).toBe('forbidden')
    expect((await t.request('GET', '/v1/auth/api-keys', { headers: member.headers })).status).toBe(200)
  })
})

describe('GET /v1/auth/api-keys', () => {
  test('lists only the caller tenant keys, newest first, with api_key null', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    t.clock.advance(1000)
    const k = (await t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body: { name: 'second' } })).body
    const list = (await t.request('GET', '/v1/auth/api-keys', { headers: a.userHeaders })).body
    expect(list.map((x: any) => x.key_id)).toEqual([k.key_id, a.keyId])
    expect(list.every((x: any) => x.api_key === null)).toBe(true)
    expect(list.some((x: any) => x.key_id === b.keyId)).toBe(false)
  })

  test('last_used_at is written on use, at most once a minute', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const lastUsed = async () =>
      (await t.request('GET', '/v1/auth/api-keys', { headers: a.userHeaders })).body.find((k: any) => k.key_id === a.keyId).last_used_at
    expect(await lastUsed()).toBeNull()
    const first = new Date(t.clock.now()).toISOString()
    await useKey(t, a.keyHeaders)
    expect(await lastUsed()).toBe(first)
    t.clock.advance(30_000)
    await useKey(t, a.keyHeaders)
    expect(await lastUsed()).toBe(first)
    t.clock.advance(30_000)
    await useKey(t, a.keyHeaders)
    expect(await lastUsed()).toBe(new Date(t.clock.now()).toISOString())
  })
})

describe('DELETE /v1/auth/api-keys/{key_id}', () => {
  test('204, and the key is refused on the very next request', async () => {
    const t = testApp()
    const a = await createTenant(t)
    expect((await useKey(t, a.keyHeaders)).status).toBe(404) // cached by the verifier now
    const res = await t.request('DELETE', `/v1/auth/api-keys/${a.keyId}`, { headers: a.userHeaders })
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    const after = await useKey(t, a.keyHeaders)
    expect(after.status).toBe(401)
    expect(after.body.error.message).toContain('revoked')
    const listed = (await t.request('GET', '/v1/auth/api-keys', { headers: a.userHeaders })).body.find((k: any) => k.key_id === a.keyId)
    expect(listed.is_active).toBe(false)
  })

  test("another tenant's key or an unknown id is 404 and nothing changes", async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const res = await t.request('DELETE', `/v1/auth/api-keys/${b.keyId}`, { headers: a.userHeaders })
    expect(res.status).toBe(404)
    expect((await useKey(t, b.keyHeaders)).status).toBe(404)
    expect((await t.request('DELETE', '/v1/auth/api-keys/key_unknown', { headers: a.userHeaders })).status).toBe(404)
  })

  test('members may not revoke', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const member = await addMember(t, a.clientId, 'member')
    expect((await t.request('DELETE', `/v1/auth/api-keys/${a.keyId}`, { headers: member.headers })).status).toBe(403)
  })
})
