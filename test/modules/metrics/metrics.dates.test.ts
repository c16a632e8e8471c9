import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'

describe('recorded_at and the date filters are strict RFC 3339', () => {
  test('an impossible date or an absurd year is 422 at body.recorded_at, not moved or stored', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    for (const recorded_at of [
      '2024-02-30T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '-000001-01-01T00:00:00Z',
      '1969-12-31T00:00:00Z',
      '2025-12-31T25:00:00Z',
      '2025-12-31',
    ]) {
      for (const [path, body] of [
        ['/v1/metrics/hardware', { cpu_percent: 1, recorded_at }],
        ['/v1/metrics/network', { upload_mbps: 1, recorded_at }],
        ['/v1/metrics/batch', { hardware: { cpu_percent: 1 }, recorded_at }],
      ] as const) {
        const res = await t.request('POST', path, { body, headers: a.keyHeaders })
        expect({ path, recorded_at, status: res.status, loc: res.body.detail?.[0]?.loc }).toEqual({
          path,
          recorded_at,
          status: 422,
          loc: ['body', 'recorded_at'],
        })
      }
      const part = await t.request('POST', '/v1/metrics/batch', { body: { hardware: { cpu_percent: 1, recorded_at } }, headers: a.keyHeaders })
      expect(part.body.detail?.[0]?.loc).toEqual(['body', 'hardware', 'recorded_at'])
    }
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM metric_samples').get()).toEqual({ n: 0 })
    const ok = await t.request('POST', '/v1/metrics/hardware', { body: { cpu_percent: 1, recorded_at: '2025-12-31T23:00:00.5+01:00' }, headers: a.keyHeaders })
    expect(ok.status).toBe(201)
    expect(ok.body.recorded_at).toBe('2025-12-31T22:00:00.500Z')
  })

  test('start_date and end_date: an impossible date is 422 at query.start_date', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    for (const q of ['start_date=2024-02-30T00:00:00Z', 'end_date=0000-01-01T00:00:00Z', 'start_date=2026-01-01T00:00:00']) {
      const res = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?${q}`, { headers: a.userHeaders })
      expect({ q, status: res.status, loc: res.body.detail?.[0]?.loc }).toEqual({ q, status: 422, loc: ['query', q.split('=')[0]!] })
    }
    expect((await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?start_date=2024-02-29T00:00:00Z`, { headers: a.userHeaders })).status).toBe(200)
  })
})
