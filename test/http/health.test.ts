import { describe, expect, test } from 'bun:test'
import { testApp } from '../helpers/app'

describe('GET /health', () => {
  test('answers status, version, uptime and database state', async () => {
    const t = testApp()
    t.clock.advance(5_000)
    const res = await t.request('GET', '/health')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ status: 'ok', database: { ok: true }, uptime_seconds: 5 })
    expect(typeof res.body.version).toBe('string')
  })

  test('tells the portal the instance mode and the sign-up policy (billing hidden in own mode)', async () => {
    const service = await testApp().request('GET', '/health')
    expect(service.body).toMatchObject({ mode: 'service', signup: 'open' })
    const own = testApp({ config: { instance: { mode: 'own', signup: null, own: { maxDevices: 10, maxUsers: 10, rateLimit: 600 } } } })
    expect((await own.request('GET', '/health')).body).toMatchObject({ mode: 'own', signup: 'invite' })
    const closed = testApp({ config: { instance: { mode: 'service', signup: 'closed', own: { maxDevices: 10, maxUsers: 10, rateLimit: 600 } } } })
    expect((await closed.request('GET', '/health')).body).toMatchObject({ mode: 'service', signup: 'closed' })
  })

  test('reports a closed database as degraded with 503', async () => {
    const t = testApp()
    t.db.sqlite.close()
    const res = await t.request('GET', '/health')
    expect(res.status).toBe(503)
    expect(res.body).toMatchObject({ status: 'degraded', database: { ok: false } })
    // the conversion's progress cannot be told without the database: left out, not made up
    expect(res.body.storage).toEqual({ warning: null })
  })
})
