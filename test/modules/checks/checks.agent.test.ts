import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { insertDevice } from '../../helpers/devices'
import { createKey, createTenant } from '../../helpers/fixtures'
import { hardwareSample } from '../../helpers/samples'

async function setup() {
  const t = testApp()
  const a = await createTenant(t)
  const device = insertDevice(t, a.clientId, { hostname: 'nas' })
  t.db.sqlite.run('UPDATE devices SET seq = 700 WHERE id = ?', [device])
  const res = await t.request('POST', '/v1/checks', {
    headers: a.userHeaders,
    body: { name: 'router', kind: 'http', settings: { url: 'http://192.168.1.1/' }, run_on_hub: false, device_ids: [device], down_after: 2 },
  })
  expect(res.status).toBe(201)
  return { t, a, device, checkId: res.body.id as string }
}

const result = (checkId: string, ts: string, ok: boolean) => ({
  check_id: checkId,
  ts,
  ok,
  response_ms: ok ? 12.5 : null,
  status_code: ok ? 200 : null,
  error: ok ? null : 'connection refused',
  cert_expires_at: null,
})

const batch = (t: TestApp, headers: Record<string, string>, device: string, body: Record<string, unknown>) =>
  t.request('POST', '/v1/metrics/batch', { headers: { ...headers, 'x-device-id': device }, body: { hardware: hardwareSample(0), ...body } })

describe('agent-run checks', () => {
  test("GET /v1/agent/checks lists the device's checks with an etag; 304 while unchanged; private targets are the agent's to reach", async () => {
    const { t, a, device, checkId } = await setup()
    const res = await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: a.keyHeaders })
    expect(res.status).toBe(200)
    expect(res.body.checks).toEqual([
      {
        id: checkId,
        name: 'router',
        kind: 'http',
        settings: expect.objectContaining({ url: 'http://192.168.1.1/' }),
        interval_s: 60,
        timeout_ms: 10000,
      },
    ])
    expect(res.headers.get('etag')).toBe(res.body.etag)
    const again = await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: { ...a.keyHeaders, 'if-none-match': res.body.etag } })
    expect(again.status).toBe(304)
    await t.request('PATCH', `/v1/checks/${checkId}`, { headers: a.userHeaders, body: { interval_s: 30 } })
    const changed = await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: { ...a.keyHeaders, 'if-none-match': res.body.etag } })
    expect(changed.status).toBe(200)
    expect(changed.body.checks[0].interval_s).toBe(30)
  })

  test("another tenant's device is 404; a key bound to another device is 403; a JWT is 401", async () => {
    const { t, a, device } = await setup()
    const b = await createTenant(t)
    expect((await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: b.keyHeaders })).status).toBe(404)
    const other = insertDevice(t, a.clientId, { hostname: 'other' })
    const bound = createKey(t, a.clientId, { deviceId: other })
    expect((await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: bound.headers })).body.error.code).toBe('device_mismatch')
    expect((await t.request('GET', `/v1/agent/checks?device_id=${device}`, { headers: a.userHeaders })).status).toBe(401)
  })

  test('check_results in a batch are stored for the device at their own time, once; state follows them', async () => {
    const { t, a, device, checkId } = await setup()
    const t0 = t.clock.now()
    const iso = (ms: number) => new Date(ms).toISOString()
    expect(
      (await batch(t, a.keyHeaders, device, { check_results: [result(checkId, iso(t0 - 120_000), false), result(checkId, iso(t0 - 60_000), false)] })).status,
    ).toBe(201)
    // the same results again (a replay through /bulk): nothing stored twice
    const replay = await t.request('POST', '/v1/metrics/bulk', {
      headers: { ...a.keyHeaders, 'x-device-id': device },
      body: {
        device_id: device,
        items: [{ hardware: hardwareSample(0), recorded_at: iso(t0 - 60_000), check_results: [result(checkId, iso(t0 - 60_000), false)] }],
      },
    })
    expect(replay.status).toBe(201)
    const view = await t.request('GET', `/v1/checks/${checkId}`, { headers: a.userHeaders })
    expect(view.body.state).toBe('down')
    expect(view.body.places).toEqual([
      expect.objectContaining({ place: device, state: 'down', error: 'connection refused', last_checked_at: iso(t0 - 60_000) }),
    ])
    const results = await t.request('GET', `/v1/checks/${checkId}/results`, { headers: a.userHeaders })
    expect(results.body.total).toBe(2)
    // a result for a check that does not run on this device is dropped
    const other = insertDevice(t, a.clientId, { hostname: 'other' })
    t.db.sqlite.run('UPDATE devices SET seq = 701 WHERE id = ?', [other])
    await batch(t, a.keyHeaders, other, { check_results: [result(checkId, iso(t0), true)] })
    expect((await t.request('GET', `/v1/checks/${checkId}/results`, { headers: a.userHeaders })).body.total).toBe(2)
  })

  test('results the hub cannot store fail the batch (the agent keeps it queued); its replay stores them', async () => {
    const { t, a, device, checkId } = await setup()
    const t0 = t.clock.now()
    const iso = (ms: number) => new Date(ms).toISOString()
    // the results' table refuses every write, as a full disk would
    t.db.sqlite.run("CREATE TRIGGER refuse_results BEFORE INSERT ON check_results BEGIN SELECT RAISE(ABORT, 'disk full'); END")
    const sent = [result(checkId, iso(t0 - 60_000), false)]
    const res = await batch(t, a.keyHeaders, device, { recorded_at: iso(t0 - 60_000), check_results: sent })
    expect(res.status).toBe(500)
    expect(res.body.error.code).toBe('internal_error')
    expect((await t.request('GET', `/v1/checks/${checkId}/results`, { headers: a.userHeaders })).body.total).toBe(0)
    const replayed = async () =>
      t.request('POST', '/v1/metrics/bulk', {
        headers: { ...a.keyHeaders, 'x-device-id': device },
        body: { device_id: device, items: [{ hardware: hardwareSample(0), recorded_at: iso(t0 - 60_000), check_results: sent }] },
      })
    // a replay while the write still fails is refused as well: nothing is acknowledged and lost
    expect((await replayed()).status).toBe(500)
    t.db.sqlite.run('DROP TRIGGER refuse_results')
    const replay = await replayed()
    expect(replay.status).toBe(201)
    expect(replay.body.items[0].status).toBe('duplicate')
    const results = await t.request('GET', `/v1/checks/${checkId}/results`, { headers: a.userHeaders })
    expect(results.body.total).toBe(1)
  })

  test('malformed check_results are a 422 with the detail list', async () => {
    const { t, a, device, checkId } = await setup()
    const bad = [
      [{ ...result(checkId, new Date().toISOString(), true), error: 'x'.repeat(501) }],
      [{ ...result(checkId, 'yesterday', true) }],
      Array.from({ length: 501 }, () => result(checkId, new Date().toISOString(), true)),
    ]
    for (const check_results of bad) {
      const res = await batch(t, a.keyHeaders, device, { check_results })
      expect(res.status).toBe(422)
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'check_results'])
    }
  })
})
