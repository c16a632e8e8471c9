import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { addMember, createKey, createTenant } from '../../helpers/fixtures'
import { insertDevice } from '../../helpers/devices'

async function setup() {
  const t = testApp()
  const a = await createTenant(t)
  const b = await createTenant(t)
  const devA = insertDevice(t, a.clientId)
  const devB = insertDevice(t, b.clientId)
  return { t, a, b, devA, devB }
}

describe('POST /v1/recommendations', () => {
  test('stores a recommendation for the device in the body and returns the record', async () => {
    const { t, a, devA } = await setup()
    const res = await t.request('POST', '/v1/recommendations', {
      headers: a.keyHeaders,
      body: { recommendation: 'Update the kernel', category: 'general', device_id: devA },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      client_id: a.clientId,
      device_id: devA,
      recommendation: 'Update the kernel',
      category: 'general',
      severity: 'info',
      source: 'collector',
      evidence: null,
    })
    expect(res.body.id).toStartWith('rec_')
    expect(res.body.created_at).toBe('2026-01-01T00:00:00.000Z')
  })

  test("defaults the category, and the device to the key's bound device, else the only one, else 422", async () => {
    const { t, a, devA } = await setup()
    const bound = createKey(t, a.clientId, { scopes: ['recommendations:write'], deviceId: devA })
    const res = await t.request('POST', '/v1/recommendations', { headers: bound.headers, body: { recommendation: 'x' } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ device_id: devA, category: 'general' })
    const only = await t.request('POST', '/v1/recommendations', { headers: a.keyHeaders, body: { recommendation: 'y' } })
    expect(only.status).toBe(201)
    expect(only.body.device_id).toBe(devA)
    const second = insertDevice(t, a.clientId)
    const ambiguous = await t.request('POST', '/v1/recommendations', { headers: a.keyHeaders, body: { recommendation: 'z' } })
    expect(ambiguous.status).toBe(422)
    expect(ambiguous.body.error.code).toBe('device_required')
    const named = await t.request('POST', '/v1/recommendations', { headers: { ...a.keyHeaders, 'x-device-id': second }, body: { recommendation: 'z' } })
    expect(named.body.device_id).toBe(second)
  })

  test('a key bound to one device cannot post for another: 403 device_mismatch', async () => {
    const { t, a, devA } = await setup()
    const other = insertDevice(t, a.clientId)
    const bound = createKey(t, a.clientId, { deviceId: devA })
    const res = await t.request('POST', '/v1/recommendations', { headers: bound.headers, body: { recommendation: 'x', device_id: other } })
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('device_mismatch')
  })

  test("another client's device is 404", async () => {
    const { t, a, devB } = await setup()
    const res = await t.request('POST', '/v1/recommendations', { headers: a.keyHeaders, body: { recommendation: 'x', device_id: devB } })
    expect(res.status).toBe(404)
  })

  test('bounds: empty or oversized text, missing field → 422', async () => {
    const { t, a } = await setup()
    for (const body of [{ recommendation: '' }, { recommendation: 'x'.repeat(10_001) }, {}, { recommendation: 'x', severity: 'bad' }]) {
      const res = await t.request('POST', '/v1/recommendations', { headers: a.keyHeaders, body })
      expect(res.status).toBe(422)
      expect(res.body.detail[0].loc[0]).toBe('body')
    }
  })

  test('credentials: none 401, JWT 401, key without the scope 403', async () => {
    const { t, a } = await setup()
    expect((await t.request('POST', '/v1/recommendations', { body: { recommendation: 'x' } })).status).toBe(401)
    expect((await t.request('POST', '/v1/recommendations', { headers: a.userHeaders, body: { recommendation: 'x' } })).status).toBe(401)
    const metricsOnly = createKey(t, a.clientId, { scopes: ['metrics:write'] })
    const res = await t.request('POST', '/v1/recommendations', { headers: metricsOnly.headers, body: { recommendation: 'x' } })
    expect(res.status).toBe(403)
    expect(res.body.error).toMatchObject({ code: 'insufficient_scope', param: 'recommendations:write' })
  })
})

describe('GET /v1/recommendations/{device_id}', () => {
  async function seeded() {
    const s = await setup()
    for (let i = 0; i < 5; i++) {
      await s.t.request('POST', '/v1/recommendations', { headers: s.a.keyHeaders, body: { recommendation: `r${i}`, device_id: s.devA } })
      s.t.clock.advance(60_000)
    }
    return s
  }

  test('pages newest first with total', async () => {
    const { t, a, devA } = await seeded()
    const res = await t.request('GET', `/v1/recommendations/${devA}?limit=2&offset=1`, { headers: a.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ limit: 2, offset: 1, total: 5 })
    expect(res.body.items.map((r: any) => r.recommendation)).toEqual(['r3', 'r2'])
  })

  test('filters by start_date and end_date', async () => {
    const { t, a, devA } = await seeded()
    const res = await t.request('GET', `/v1/recommendations/${devA}?start_date=2026-01-01T00:01:00Z&end_date=2026-01-01T00:03:00Z`, { headers: a.userHeaders })
    expect(res.body.items.map((r: any) => r.recommendation)).toEqual(['r3', 'r2', 'r1'])
    expect(res.body.total).toBe(3)
  })

  test('latest: newest first, default 5, as {items}', async () => {
    const { t, a, devA } = await seeded()
    const res = await t.request('GET', `/v1/recommendations/${devA}/latest?limit=2`, { headers: a.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body.items.map((r: any) => r.recommendation)).toEqual(['r4', 'r3'])
    const all = await t.request('GET', `/v1/recommendations/${devA}/latest`, { headers: a.userHeaders })
    expect(all.body.items).toHaveLength(5)
  })

  test('query bounds → 422', async () => {
    const { t, a, devA } = await setup()
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'start_date=yesterday']) {
      const res = await t.request('GET', `/v1/recommendations/${devA}?${q}`, { headers: a.userHeaders })
      expect(res.status).toBe(422)
      expect(res.body.detail[0].loc).toEqual(['query', q.split('=')[0]])
    }
    for (const q of ['limit=0', 'limit=21']) {
      expect((await t.request('GET', `/v1/recommendations/${devA}/latest?${q}`, { headers: a.userHeaders })).status).toBe(422)
    }
  })

  test("tenant isolation: another client's device is 404 on both reads; any member may read", async () => {
    const { t, a, b, devA, devB } = await seeded()
    expect((await t.request('GET', `/v1/recommendations/${devB}`, { headers: a.userHeaders })).status).toBe(404)
    expect((await t.request('GET', `/v1/recommendations/${devA}/latest`, { headers: b.userHeaders })).status).toBe(404)
    const member = await addMember(t, a.clientId, 'member')
    expect((await t.request('GET', `/v1/recommendations/${devA}`, { headers: member.headers })).status).toBe(200)
  })

  test('reads need a JWT: no credential or an API key is 401', async () => {
    const { t, a, devA } = await setup()
    expect((await t.request('GET', `/v1/recommendations/${devA}`)).status).toBe(401)
    expect((await t.request('GET', `/v1/recommendations/${devA}`, { headers: a.keyHeaders })).status).toBe(401)
  })

  test('deleting the device deletes its recommendations', async () => {
    const { t, devA } = await seeded()
    t.db.sqlite.run('DELETE FROM devices WHERE id = ?', [devA])
    expect(t.db.sqlite.query('SELECT COUNT(*) AS n FROM recommendations').get()).toEqual({ n: 0 })
  })
})
