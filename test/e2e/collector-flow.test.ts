import { expect, test } from 'bun:test'
import { testApp } from '../helpers/app'

/**
 * The whole product through its public API only, on the real app: an operator signs up, makes
 * a collector key, the collector registers its device and reports, the portal reads history and
 * the summary, the built-in engine turns real stored metrics into advice, the operator sees it
 * in the admin stats, and deleting the device takes its data with it.
 */
test('collector flow end to end', async () => {
  const t = testApp()
  const reg = await t.request('POST', '/v1/auth/register', { body: { email: 'Ops@Example.test', password: 'correct horse battery', company: 'Acme' } })
  expect(reg.status).toBe(201)
  expect(reg.body).toMatchObject({ email: 'ops@example.test', role: 'admin' })
  const login = await t.request('POST', '/v1/auth/login', { body: { email: 'ops@example.test', password: 'correct horse battery' } })
  expect(login.body).toMatchObject({ token_type: 'bearer', expires_in: 900 })
  let portal = { authorization: `Bearer ${login.body.access_token}` }

  const key = await t.request('POST', '/v1/auth/api-keys', { body: { name: 'rack-1' }, headers: portal })
  expect(key.status).toBe(201)
  expect(key.body.scopes).toEqual(['metrics:write', 'recommendations:write'])
  const collector = { 'x-api-key': key.body.api_key }

  const device = await t.request('POST', '/v1/clients/me/devices', {
    body: { hostname: 'rack-1', os: 'linux', os_version: '6.8', arch: 'arm64', fingerprint: 'fp-rack-1' },
    headers: collector,
  })
  expect(device.status).toBe(201)
  const deviceId = device.body.device_id

  // An hour of a busy machine, one sample a minute.
  for (let i = 0; i < 60; i++) {
    const res = await t.request('POST', '/v1/metrics/batch', {
      body: {
        hardware: { cpu_percent: 97, ram_percent: 40, disk_partitions: [{ mountpoint: '/', percent: 50 }] },
        network: { latency_avg_ms: 3, packet_loss_percent: 0 },
      },
      headers: collector,
    })
    expect(res.status).toBe(201)
    t.clock.advance(60_000)
  }
  // The access token lived 15 minutes; the refresh token renews the session.
  expect((await t.request('GET', '/v1/auth/me', { headers: portal })).status).toBe(401)
  const refreshed = await t.request('POST', '/v1/auth/refresh', { body: { refresh_token: login.body.refresh_token } })
  expect(refreshed.status).toBe(200)
  portal = { authorization: `Bearer ${refreshed.body.access_token}` }

  const posted = await t.request('POST', '/v1/recommendations', { body: { recommendation: 'Replace the fan', category: 'thermal' }, headers: collector })
  expect(posted.status).toBe(201)
  const version = await t.request('POST', '/v1/versions', { body: { platform: 'linux', version: '1.2.0' }, headers: portal })
  expect(version.status).toBe(200)
  expect((await t.request('GET', '/v1/versions/linux', { headers: collector })).body).toMatchObject({ version: '1.2.0' })

  const history = await t.request('GET', `/v1/metrics/hardware/${deviceId}?limit=5`, { headers: portal })
  expect(history.body).toMatchObject({ limit: 5, offset: 0, total: 60 })
  expect(history.body.items[0].cpu_percent).toBe(97)
  const summary = await t.request('GET', `/v1/metrics/summary/${deviceId}?hours=1`, { headers: portal })
  expect(summary.body.hardware.fields.cpu_percent.avg).toBe(97)

  const generated = await t.request('POST', `/v1/ai/generate/${deviceId}`, { headers: portal })
  expect(generated.status).toBe(200)
  expect(generated.body.items.map((r: { category: string }) => r.category)).toContain('cpu')
  const latest = await t.request('GET', `/v1/recommendations/${deviceId}/latest`, { headers: portal })
  expect(latest.body.items.map((r: { source: string }) => r.source)).toEqual(expect.arrayContaining(['rules', 'collector']))

  const stats = await t.request('GET', '/v1/admin/stats', { headers: portal })
  expect(stats.body).toMatchObject({ users: 1, clients: 1, devices: 1 })
  expect(JSON.stringify(stats.body)).toContain('metric_rows_hardware')

  expect((await t.request('DELETE', `/v1/clients/me/devices/${deviceId}`, { headers: portal })).status).toBe(204)
  expect((await t.request('GET', `/v1/metrics/hardware/${deviceId}`, { headers: portal })).status).toBe(404)
  const left = t.db.sqlite.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM recommendations').get()!.n
  expect(left).toBe(0)
})
