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

  test('reports a closed database as degraded with 503', async () => {
    const t = testApp()
    t.db.sqlite.close()
    const res = await t.request('GET', '/health')
    expect(res.status).toBe(503)
    expect(res.body).toMatchObject({ status: 'degraded', database: { ok: false } })
  })
})
