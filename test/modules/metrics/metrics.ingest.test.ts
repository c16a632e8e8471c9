import { describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { createKey, createTenant } from '../../helpers/fixtures'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

describe('POST /v1/metrics/hardware|network', () => {
  test('201 with the id and timestamp; every field comes back as sent', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const body = hardwareSample()
    const r = await t.request('POST', '/v1/metrics/hardware', { body, headers: a.keyHeaders })
    expect(r.status).toBe(201)
    expect(r.body).toEqual({ id: expect.any(Number), device_id: a.deviceId, recorded_at: '2026-01-01T00:00:00.000Z' })
    const latest = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}/latest`, { headers: a.userHeaders })
    expect(latest.status).toBe(200)
    expect(latest.body).toEqual({ ...body, id: r.body.id, device_id: a.deviceId, recorded_at: r.body.recorded_at, disk_used_percent: 38.3 })

    const n = await t.request('POST', '/v1/metrics/network', { body: networkSample(), headers: a.keyHeaders })
    expect(n.status).toBe(201)
    const nl = await t.request('GET', `/v1/metrics/network/${a.deviceId}/latest`, { headers: a.userHeaders })
    expect(nl.body).toEqual({ ...networkSample(), id: n.body.id, device_id: a.deviceId, recorded_at: n.body.recorded_at })
  })

  test('fields a collector adds beyond the schema are stored as sent, top level and nested, on every ingest route', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const extra = { vendor_probe: { fan_curve: [30, 60] } }
    expect((await t.request('POST', '/v1/metrics/hardware', { body: { cpu_percent: 5, ...extra }, headers: a.keyHeaders })).status).toBe(201)
    expect((await t.request('POST', '/v1/metrics/network', { body: { upload_mbps: 1, ...extra }, headers: a.keyHeaders })).status).toBe(201)
    const hw = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}`, { headers: a.userHeaders })
    expect(hw.body.items[0]).toMatchObject({ cpu_percent: 5, ...extra })
    const net = await t.request('GET', `/v1/metrics/network/${a.deviceId}`, { headers: a.userHeaders })
    expect(net.body.items[0]).toMatchObject({ upload_mbps: 1, ...extra })
  })

  test('an empty sample is accepted; disk_used_percent falls back to used/total', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    expect((await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: a.keyHeaders })).status).toBe(201)
    await t.request('POST', '/v1/metrics/hardware', {
      body: {
        disk_partitions: [
          { used: 30, total: 120 },
          { percent: 'n/a', used: 1, total: 2 },
        ],
      },
      headers: a.keyHeaders,
    })
    const l = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}/latest`, { headers: a.userHeaders })
    expect(l.body.disk_used_percent).toBe(50)
  })

  test('422 for a wrongly typed field, with its location', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const cases: [string, Record<string, unknown>, (string | number)[]][] = [
      ['/v1/metrics/hardware', { cpu_percent: 'high' }, ['body', 'cpu_percent']],
      ['/v1/metrics/hardware', { cpu_count_logical: 2.5 }, ['body', 'cpu_count_logical']],
      ['/v1/metrics/hardware', { gpus: {} }, ['body', 'gpus']],
      ['/v1/metrics/hardware', { cpu_per_core: ['x'] }, ['body', 'cpu_per_core', 0]],
      ['/v1/metrics/network', { bytes_sent_total: 'lots' }, ['body', 'bytes_sent_total']],
      ['/v1/metrics/network', { wifi: [1] }, ['body', 'wifi']],
      ['/v1/metrics/network', { recorded_at: 'yesterday' }, ['body', 'recorded_at']],
    ]
    for (const [path, body, loc] of cases) {
      const r = await t.request('POST', path, { body, headers: a.keyHeaders })
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422])
      expect(r.body.detail[0].loc).toEqual(loc)
    }
    expect((await t.request('POST', '/v1/metrics/hardware', { raw: '{nope', headers: { ...a.keyHeaders, 'content-type': 'application/json' } })).status).toBe(
      422,
    )
  })

  test('recorded_at: a buffered sample keeps its time; the future is refused', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const r = await t.request('POST', '/v1/metrics/network', { body: { upload_mbps: 1, recorded_at: '2025-12-31T23:00:00Z' }, headers: a.keyHeaders })
    expect(r.status).toBe(201)
    expect(r.body.recorded_at).toBe('2025-12-31T23:00:00.000Z')
    const f = await t.request('POST', '/v1/metrics/network', { body: { recorded_at: '2026-01-01T01:00:00Z' }, headers: a.keyHeaders })
    expect(f.status).toBe(400)
    expect(f.body.error.param).toBe('recorded_at')
  })

  test('auth: no key 401, an access token 401, a key without metrics:write 403', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    expect((await t.request('POST', '/v1/metrics/hardware', { body: {} })).status).toBe(401)
    expect((await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: a.userHeaders })).status).toBe(401)
    const k = createKey(t, a.clientId, { scopes: ['recommendations:write'] })
    expect((await t.request('POST', '/v1/metrics/batch', { body: {}, headers: k.headers })).status).toBe(403)
    const bearer = await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: { authorization: `Bearer ${a.apiKey}` } })
    expect(bearer.status).toBe(201)
  })
})

describe('which device a metric belongs to', () => {
  test('the only device by default; else 422 device_required', async () => {
    const t = testApp()
    const none = await createTenant(t)
    const r0 = await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: none.keyHeaders })
    expect(r0.status).toBe(422)
    expect(r0.body.error.code).toBe('device_required')
    const a = await tenantWithDevices(t, 2)
    const r = await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: a.keyHeaders })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('device_required')
  })

  test('x-device-id header, else device_id in the body', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 2)
    const [d0, d1] = a.deviceIds
    const h = await t.request('POST', '/v1/metrics/hardware', { body: { device_id: d0 }, headers: { ...a.keyHeaders, 'x-device-id': d1! } })
    expect(h.body.device_id).toBe(d1)
    const b = await t.request('POST', '/v1/metrics/batch', { body: { device_id: d0, network: {} }, headers: a.keyHeaders })
    expect(b.body.device_id).toBe(d0)
  })

  test("another tenant's device is 404", async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const b = await tenantWithDevices(t)
    const r = await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: { ...b.keyHeaders, 'x-device-id': a.deviceId } })
    expect(r.status).toBe(404)
    const r2 = await t.request('POST', '/v1/metrics/batch', { body: { device_id: a.deviceId, hardware: {} }, headers: b.keyHeaders })
    expect(r2.status).toBe(404)
  })

  test('a bound key acts for its device only', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 2)
    const [d0, d1] = a.deviceIds
    const bound = createKey(t, a.clientId, { deviceId: d1 })
    const r = await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: bound.headers })
    expect(r.status).toBe(201)
    expect(r.body.device_id).toBe(d1)
    const m = await t.request('POST', '/v1/metrics/hardware', { body: {}, headers: { ...bound.headers, 'x-device-id': d0! } })
    expect(m.status).toBe(403)
    expect(m.body.error.code).toBe('device_mismatch')
  })
})

describe('POST /v1/metrics/batch', () => {
  test('stores both parts; either may be absent', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const r = await t.request('POST', '/v1/metrics/batch', { body: { hardware: hardwareSample(), network: networkSample() }, headers: a.keyHeaders })
    expect(r.status).toBe(201)
    expect(r.body).toEqual({
      device_id: a.deviceId,
      hardware: { id: expect.any(Number), recorded_at: '2026-01-01T00:00:00.000Z' },
      network: { id: expect.any(Number), recorded_at: '2026-01-01T00:00:00.000Z' },
    })
    const only = await t.request('POST', '/v1/metrics/batch', { body: { network: networkSample(), hardware: null }, headers: a.keyHeaders })
    expect(only.body.hardware).toBeNull()
    const bad = await t.request('POST', '/v1/metrics/batch', { body: { hardware: { cpu_percent: 'x' } }, headers: a.keyHeaders })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['body', 'hardware', 'cpu_percent'])
  })

  test('atomic: when the network part fails the hardware part is not stored', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    // parts with different times are separate samples: the second one's failure must undo the first (the trigger fails the
    // network values reaching the in-memory rows of the samples kept in metric_hot)
    t.db.sqlite.run("CREATE TEMP TRIGGER fail_net BEFORE INSERT ON metric_hot_rows WHEN NEW.upload_mbps = -1 BEGIN SELECT RAISE(ABORT, 'boom'); END")
    const body = { hardware: { ...hardwareSample(), recorded_at: '2025-12-31T23:59:00Z' }, network: { upload_mbps: -1 } }
    const r = await t.request('POST', '/v1/metrics/batch', { body, headers: a.keyHeaders })
    expect(r.status).toBe(500)
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM metric_samples').get()).toEqual({ n: 0 })
  })

  test('parts sent at different times are both kept with their own times', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const body = { hardware: { cpu_percent: 5, recorded_at: '2025-12-31T23:59:00Z' }, network: { upload_mbps: 2 } }
    const r = await t.request('POST', '/v1/metrics/batch', { body, headers: a.keyHeaders })
    expect(r.body.hardware.recorded_at).toBe('2025-12-31T23:59:00.000Z')
    expect(r.body.network.recorded_at).toBe('2026-01-01T00:00:00.000Z')
    expect((await t.request('GET', `/v1/metrics/hardware/${a.deviceId}/latest`, { headers: a.userHeaders })).body.cpu_percent).toBe(5)
    expect((await t.request('GET', `/v1/metrics/network/${a.deviceId}/latest`, { headers: a.userHeaders })).body.upload_mbps).toBe(2)
    expect((await t.request('GET', `/v1/metrics/network/${a.deviceId}`, { headers: a.userHeaders })).body.total).toBe(1)
  })

  test('group commit: a failing request in a group fails alone', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.db.sqlite.run("CREATE TEMP TRIGGER fail_net BEFORE INSERT ON metric_hot_rows WHEN NEW.upload_mbps = -1 BEGIN SELECT RAISE(ABORT, 'boom'); END")
    const send = (mbps: number) =>
      t.request('POST', '/v1/metrics/batch', { body: { hardware: hardwareSample(), network: { upload_mbps: mbps } }, headers: a.keyHeaders })
    const results = await Promise.all([send(1), send(2), send(-1), send(3), send(4)])
    expect(results.map((r) => r.status)).toEqual([201, 201, 500, 201, 201])
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM metric_samples WHERE kinds & 3 = 3').get()).toEqual({ n: 4 })
    expect(t.db.sqlite.query('SELECT group_concat(upload_mbps) AS v FROM (SELECT upload_mbps FROM metric_samples ORDER BY id)').get()).toEqual({
      v: '1.0,2.0,3.0,4.0',
    })
    // a two-row request (parts at different times) failing in a group leaves nothing behind
    const split = t.request('POST', '/v1/metrics/batch', {
      body: { hardware: { cpu_percent: 77, recorded_at: '2025-12-31T23:00:00Z' }, network: { upload_mbps: -1 } },
      headers: a.keyHeaders,
    })
    const more = await Promise.all([send(5), split, send(6)])
    expect(more.map((r) => r.status)).toEqual([201, 500, 201])
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM metric_samples WHERE cpu_percent = 77').get()).toEqual({ n: 0 })
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM metric_samples').get()).toEqual({ n: 6 })
    // the ids the 201s reported are the stored rows
    const ids = [...results, ...more].filter((r) => r.status === 201).map((r) => r.body.hardware.id)
    expect(ids).toEqual(
      t.db.sqlite
        .query<{ id: number }, []>('SELECT id FROM metric_samples ORDER BY id')
        .all()
        .map((r) => r.id),
    )
  })
  test('a held writer queues requests and commits them, none refused, once released', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const count = () => t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
    const send = (mbps: number) =>
      t.request('POST', '/v1/metrics/batch', { body: { hardware: hardwareSample(), network: { upload_mbps: mbps } }, headers: a.keyHeaders })
    const release = t.modules.metrics.writer.hold()
    let settled = 0
    const pending = [send(1), send(2), send(3)].map((p) => p.finally(() => settled++))
    // each request is read and checked, then waits in the writer's queue
    while (t.modules.metrics.writer.queued() < 3) await new Promise((r) => setImmediate(r))
    expect([settled, count()]).toEqual([0, 0])
    release()
    release() // a second release is a no-op, not a second unhold
    const results = await Promise.all(pending)
    expect(results.map((r) => r.status)).toEqual([201, 201, 201])
    expect(count()).toBe(3)
    // not held any more: a lone request goes straight through
    expect((await send(4)).status).toBe(201)
  })
})
