import { describe, expect, test } from 'bun:test'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { createTenant } from '../../helpers/fixtures'
import { insertDeviceOn } from '../../helpers/devices'

/** The recommendation routes on a hub whose recommendations live in PostgreSQL. */
const pgApp = pgTestAppLifecycle()

async function setup() {
  const t = await pgApp.make()
  const a = await createTenant(t)
  const b = await createTenant(t)
  const devA = await insertDeviceOn(t, a.clientId)
  const devB = await insertDeviceOn(t, b.clientId)
  return { t, a, b, devA, devB }
}

describe('recommendations on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(`a collector's recommendation is stored in PostgreSQL and paged back newest first ${pgApp.skipReason}`, async () => {
    const { t, a, b, devA, devB } = await setup()
    for (let i = 0; i < 5; i++) {
      const res = await t.request('POST', '/v1/recommendations', { headers: a.keyHeaders, body: { recommendation: `r${i}`, device_id: devA } })
      expect(res.status).toBe(201)
      t.clock.advance(60_000)
    }
    const [{ n }] = await t.sql`SELECT count(*)::int AS n FROM recommendations WHERE client_id = ${a.clientId}`
    expect(n).toBe(5)
    const page = await t.request('GET', `/v1/recommendations/${devA}?limit=2&offset=1`, { headers: a.userHeaders })
    expect(page.status).toBe(200)
    expect(page.body).toMatchObject({ limit: 2, offset: 1, total: 5 })
    expect(page.body.items.map((r: any) => r.recommendation)).toEqual(['r3', 'r2'])
    const ranged = await t.request('GET', `/v1/recommendations/${devA}?start_date=2026-01-01T00:01:00Z&end_date=2026-01-01T00:03:00Z`, {
      headers: a.userHeaders,
    })
    expect(ranged.body.items.map((r: any) => r.recommendation)).toEqual(['r3', 'r2', 'r1'])
    const latest = await t.request('GET', `/v1/recommendations/${devA}/latest?limit=2`, { headers: a.userHeaders })
    expect(latest.body.items.map((r: any) => r.recommendation)).toEqual(['r4', 'r3'])
    // another client's device is 404, to read and to write
    expect((await t.request('GET', `/v1/recommendations/${devB}`, { headers: a.userHeaders })).status).toBe(404)
    expect((await t.request('GET', `/v1/recommendations/${devA}/latest`, { headers: b.userHeaders })).status).toBe(404)
    expect((await t.request('POST', '/v1/recommendations', { headers: a.keyHeaders, body: { recommendation: 'x', device_id: devB } })).status).toBe(404)
  })

  test.skipIf(pgApp.skip)(`malformed input is 422 with its detail, as on SQLite ${pgApp.skipReason}`, async () => {
    const { t, a, devA } = await setup()
    const bad = await t.request('POST', '/v1/recommendations', { headers: a.keyHeaders, body: { recommendation: '' } })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc[0]).toBe('body')
    for (const q of ['limit=0', 'start_date=yesterday']) {
      const res = await t.request('GET', `/v1/recommendations/${devA}?${q}`, { headers: a.userHeaders })
      expect(res.status).toBe(422)
      expect(res.body.detail[0].loc).toEqual(['query', q.split('=')[0]])
    }
  })
})
