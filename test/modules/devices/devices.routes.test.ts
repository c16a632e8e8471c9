import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { addMember, createKey, createTenant } from '../../helpers/fixtures'
import { hardwareSample } from '../../helpers/samples'

const device = (fingerprint: string, extra: Record<string, unknown> = {}) => ({
  hostname: `host-${fingerprint}`,
  os: 'linux',
  os_version: '6.6',
  arch: 'arm64',
  fingerprint,
  ...extra,
})

async function register(t: TestApp, headers: Record<string, string>, fp: string, extra: Record<string, unknown> = {}) {
  return t.request('POST', '/v1/clients/me/devices', { body: device(fp, extra), headers })
}

describe('POST /v1/clients/me/devices', () => {
  test('registers with the default key scopes and returns the device', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const r = await register(t, a.keyHeaders, 'fp-1', { mac_address: 'aa:bb' })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({
      client_id: a.clientId,
      fingerprint: 'fp-1',
      hostname: 'host-fp-1',
      os: 'linux',
      os_version: '6.6',
      arch: 'arm64',
      mac_address: 'aa:bb',
      last_seen_at: null,
      status: 'never',
    })
    expect(r.body.device_id).toStartWith('dev_')
    expect(r.body.created_at).toBe('2026-01-01T00:00:00.000Z')
  })

  test('the same fingerprint returns the same device, updated', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const first = await register(t, a.keyHeaders, 'fp-1')
    t.clock.advance(1000)
    const again = await register(t, a.keyHeaders, 'fp-1', { hostname: 'renamed', os_version: '6.7' })
    expect(again.status).toBe(201)
    expect(again.body.device_id).toBe(first.body.device_id)
    expect(again.body.hostname).toBe('renamed')
    expect(again.body.os_version).toBe('6.7')
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM devices').get()).toEqual({ n: 1 })
  })

  test('devices:write alone is enough; other scopes are not', async () => {
    const t = testApp()
    const a = await createTenant(t, { scopes: ['devices:write'] })
    expect((await register(t, a.keyHeaders, 'x')).status).toBe(201)
    const other = createKey(t, a.clientId, { scopes: ['recommendations:write'] })
    const r = await register(t, other.headers, 'y')
    expect(r.status).toBe(403)
    expect(r.body.error.code).toBe('insufficient_scope')
  })

  test('needs an API key: none is 401, an access token is 401', async () => {
    const t = testApp()
    const a = await createTenant(t)
    expect((await register(t, {}, 'x')).status).toBe(401)
    expect((await register(t, a.userHeaders, 'x')).status).toBe(401)
  })

  test('422 on a missing or mistyped field', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const r = await t.request('POST', '/v1/clients/me/devices', { body: { hostname: 'h', os: 'linux', os_version: '1', arch: 'x' }, headers: a.keyHeaders })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'fingerprint'])
    const r2 = await t.request('POST', '/v1/clients/me/devices', { body: { ...device('f'), hostname: 5 }, headers: a.keyHeaders })
    expect(r2.status).toBe(422)
  })

  test('max_devices holds under 20 concurrent registrations', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 5 })
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => register(t, a.keyHeaders, `fp-${i}`)))
    expect(results.filter((r) => r.status === 201)).toHaveLength(5)
    const refused = results.filter((r) => r.status === 403)
    expect(refused).toHaveLength(15)
    expect(refused[0]!.body.error.code).toBe('device_limit_reached')
    expect(refused[0]!.body.error.message).toContain('PATCH /v1/admin/clients/')
    expect(refused[0]!.body.error.message).toContain('upgrade')
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM devices WHERE client_id = ?').get(a.clientId)).toEqual({ n: 5 })
    // re-registering an existing device is still fine at the limit
    expect((await register(t, a.keyHeaders, results.find((r) => r.status === 201)!.body.fingerprint)).status).toBe(201)
  })

  test('the limit is read at registration time', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 1 })
    expect((await register(t, a.keyHeaders, 'a')).status).toBe(201)
    expect((await register(t, a.keyHeaders, 'b')).status).toBe(403)
    t.db.sqlite.run('UPDATE clients SET max_devices = 2 WHERE id = ?', [a.clientId])
    expect((await register(t, a.keyHeaders, 'b')).status).toBe(201)
  })

  test('a key bound to a deleted device is revoked with it, not widened to the other devices', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 3 })
    const gone = (await register(t, a.keyHeaders, 'gone')).body
    await register(t, a.keyHeaders, 'stays')
    const bound = createKey(t, a.clientId, { deviceId: gone.device_id })
    expect((await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: bound.headers })).body.device_id).toBe(gone.device_id)
    await t.request('DELETE', `/v1/clients/me/devices/${gone.device_id}`, { headers: a.userHeaders })
    const r = await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: bound.headers })
    expect(r.status).toBe(401)
  })

  test('a key bound to a device cannot register another one', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 3 })
    const d = await register(t, a.keyHeaders, 'mine')
    const bound = createKey(t, a.clientId, { deviceId: d.body.device_id })
    expect((await register(t, bound.headers, 'mine')).status).toBe(201)
    const r = await register(t, bound.headers, 'other')
    expect(r.status).toBe(403)
    expect(r.body.error.code).toBe('device_mismatch')
  })
})

describe('GET/DELETE /v1/clients/me/devices', () => {
  test('lists and gets devices with last_seen_at and status', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 2 })
    const d = (await register(t, a.keyHeaders, 'one')).body
    await register(t, a.keyHeaders, 'two')
    const list = await t.request('GET', '/v1/clients/me/devices', { headers: a.userHeaders })
    expect(list.status).toBe(200)
    expect(list.body.map((x: { fingerprint: string }) => x.fingerprint)).toEqual(['one', 'two'])

    t.clock.advance(5000)
    expect((await t.request('POST', '/v1/metrics/hardware', { body: hardwareSample(), headers: { ...a.keyHeaders, 'x-device-id': d.device_id } })).status).toBe(
      201,
    )
    const got = await t.request('GET', `/v1/clients/me/devices/${d.device_id}`, { headers: a.userHeaders })
    expect(got.status).toBe(200)
    expect(got.body.last_seen_at).toBe(new Date(t.clock.now()).toISOString())
    expect(got.body.status).toBe('online')
    t.clock.advance(10 * 60_000)
    expect((await t.request('GET', `/v1/clients/me/devices/${d.device_id}`, { headers: a.userHeaders })).body.status).toBe('offline')
  })

  test('needs a signed-in user', async () => {
    const t = testApp()
    const a = await createTenant(t)
    expect((await t.request('GET', '/v1/clients/me/devices')).status).toBe(401)
    expect((await t.request('GET', '/v1/clients/me/devices', { headers: a.keyHeaders })).status).toBe(401)
  })

  test('another tenant sees none of it: list empty, get and delete 404', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const d = (await register(t, a.keyHeaders, 'one')).body
    expect((await t.request('GET', '/v1/clients/me/devices', { headers: b.userHeaders })).body).toEqual([])
    expect((await t.request('GET', `/v1/clients/me/devices/${d.device_id}`, { headers: b.userHeaders })).status).toBe(404)
    expect((await t.request('DELETE', `/v1/clients/me/devices/${d.device_id}`, { headers: b.userHeaders })).status).toBe(404)
    expect((await t.request('GET', `/v1/clients/me/devices/${d.device_id}`, { headers: a.userHeaders })).status).toBe(200)
    expect((await t.request('GET', '/v1/clients/me/devices/dev_nope', { headers: a.userHeaders })).status).toBe(404)
  })

  test('delete removes the device and its metrics; a plain member may not', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const d = (await register(t, a.keyHeaders, 'one')).body
    await t.request('POST', '/v1/metrics/batch', { body: { hardware: hardwareSample(), network: {} }, headers: a.keyHeaders })
    const member = await addMember(t, a.clientId, 'member')
    expect((await t.request('DELETE', `/v1/clients/me/devices/${d.device_id}`, { headers: member.headers })).status).toBe(403)
    const del = await t.request('DELETE', `/v1/clients/me/devices/${d.device_id}`, { headers: a.userHeaders })
    expect(del.status).toBe(204)
    expect(del.text).toBe('')
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM metric_samples').get()).toEqual({ n: 0 })
    expect((await t.request('GET', `/v1/clients/me/devices/${d.device_id}`, { headers: a.userHeaders })).status).toBe(404)
    // the device is gone for the collector too
    const post = await t.request('POST', '/v1/metrics/hardware', { body: { cpu_percent: 1, device_id: d.device_id }, headers: a.keyHeaders })
    expect(post.status).toBe(404)
  })
})

describe('devices made outside the registration endpoint', () => {
  test('a device row without seq gets one on its first sample', async () => {
    const t = testApp()
    const a = await createTenant(t)
    t.db.sqlite.run("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at) VALUES ('dev_legacy', ?, 'legacy', 0, 0)", [a.clientId])
    const r = await t.request('POST', '/v1/metrics/hardware', { body: { cpu_percent: 5 }, headers: a.keyHeaders })
    expect(r.status).toBe(201)
    expect(r.body.device_id).toBe('dev_legacy')
    expect(t.db.sqlite.query("SELECT seq FROM devices WHERE id = 'dev_legacy'").get()).toEqual({ seq: 1 })
  })
})

test('a deleted device number is never handed out again', async () => {
  const t = testApp()
  const a = await createTenant(t, { maxDevices: 3 })
  const one = (await register(t, a.keyHeaders, 'one')).body
  const two = (await register(t, a.keyHeaders, 'two')).body
  await t.request('DELETE', `/v1/clients/me/devices/${two.device_id}`, { headers: a.userHeaders })
  await register(t, a.keyHeaders, 'three')
  const seqs = t.db.sqlite
    .query<{ seq: number }, []>('SELECT seq FROM devices ORDER BY seq')
    .all()
    .map((r) => r.seq)
  expect(seqs).toEqual([1, 3])
  expect(one.device_id).toBeDefined()
})

describe('PATCH /v1/clients/me/devices/{device_id} (name and tags)', () => {
  const patch = (t: TestApp, id: string, body: unknown, headers: Record<string, string>) =>
    t.request('PATCH', `/v1/clients/me/devices/${id}`, { body, headers })

  test('names and tags a device; every device answer carries them; null shows the hostname again', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const id = (await register(t, a.keyHeaders, 'fp-1')).body.device_id
    const fresh = await t.request('GET', `/v1/clients/me/devices/${id}`, { headers: a.userHeaders })
    expect(fresh.body).toMatchObject({ name: null, tags: [] })

    const r = await patch(t, id, { name: 'Kitchen Pi', tags: ['home', 'arm-64', 'rack_1.b'] }, a.userHeaders)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ device_id: id, name: 'Kitchen Pi', tags: ['home', 'arm-64', 'rack_1.b'], hostname: 'host-fp-1' })
    const listed = await t.request('GET', '/v1/clients/me/devices', { headers: a.userHeaders })
    expect(listed.body[0]).toMatchObject({ name: 'Kitchen Pi', tags: ['home', 'arm-64', 'rack_1.b'] })

    // a field left out is unchanged; re-registration (the collector) keeps what the account chose
    expect((await patch(t, id, { tags: [] }, a.userHeaders)).body).toMatchObject({ name: 'Kitchen Pi', tags: [] })
    expect((await register(t, a.keyHeaders, 'fp-1', { hostname: 'renamed' })).body).toMatchObject({ name: 'Kitchen Pi', hostname: 'renamed' })
    expect((await patch(t, id, { name: null }, a.userHeaders)).body).toMatchObject({ name: null, tags: [] })
  })

  test('422 for bad names and tags', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const id = (await register(t, a.keyHeaders, 'fp-1')).body.device_id
    const cases: [unknown, (string | number)[]][] = [
      [{ name: '' }, ['body', 'name']],
      [{ name: '   ' }, ['body', 'name']],
      [{ name: 'x'.repeat(101) }, ['body', 'name']],
      [{ name: 5 }, ['body', 'name']],
      [{ tags: ['Upper'] }, ['body', 'tags', 0]],
      [{ tags: ['ok', 'with space'] }, ['body', 'tags', 1]],
      [{ tags: [''] }, ['body', 'tags', 0]],
      [{ tags: ['x'.repeat(41)] }, ['body', 'tags', 0]],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ['body', 'tags']],
      [{ tags: ['a', 'a'] }, ['body', 'tags']],
      [{ tags: 'home' }, ['body', 'tags']],
    ]
    for (const [body, loc] of cases) {
      const r = await patch(t, id, body, a.userHeaders)
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422])
      expect(r.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc)
    }
    expect((await patch(t, id, { name: 'x'.repeat(100), tags: Array.from({ length: 20 }, (_, i) => `t${i}`) }, a.userHeaders)).status).toBe(200)
  })

  test('owner and admin may edit; a member reads only; another tenant gets 404; no token is 401', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const id = (await register(t, a.keyHeaders, 'fp-1')).body.device_id
    const admin = await addMember(t, a.clientId, 'admin')
    const member = await addMember(t, a.clientId, 'member')
    expect((await patch(t, id, { name: 'by admin' }, admin.headers)).status).toBe(200)
    const refused = await patch(t, id, { name: 'by member' }, member.headers)
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe('forbidden')
    expect((await t.request('GET', `/v1/clients/me/devices/${id}`, { headers: member.headers })).body.name).toBe('by admin')

    const b = await createTenant(t)
    const other = await patch(t, id, { name: 'mine now' }, b.userHeaders)
    expect(other.status).toBe(404)
    expect((await patch(t, id, { name: 'x' }, {})).status).toBe(401)
    expect((await patch(t, 'dev_missing', { name: 'x' }, a.userHeaders)).status).toBe(404)
    expect((await t.request('GET', `/v1/clients/me/devices/${id}`, { headers: a.userHeaders })).body.name).toBe('by admin')
  })
})
