import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

async function post(t: TestApp, headers: Record<string, string>, i: number, net: Record<string, unknown> = {}) {
  const r = await t.request('POST', '/v1/metrics/batch', { body: { hardware: hardwareSample(i), network: { ...networkSample(i), ...net } }, headers })
  if (r.status !== 201) throw new Error(`ingest failed: ${r.status} ${r.text}`)
  return r.body
}

describe('GET /v1/metrics/{kind}/{device_id} (history)', () => {
  test('newest first, paged, with total and date filters', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    for (let i = 0; i < 5; i++) {
      await post(t, a.keyHeaders, i)
      t.clock.advance(10_000)
    }
    const all = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}`, { headers: a.userHeaders })
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({ limit: 120, offset: 0, total: 5 })
    expect(all.body.items.map((x: { cpu_percent: number }) => x.cpu_percent)).toEqual([24, 23, 22, 21, 20])
    expect(all.body.items[0]).toMatchObject({ device_id: a.deviceId, recorded_at: '2026-01-01T00:00:40.000Z', cpu_brand: 'Cortex-A72' })

    const page = await t.request('GET', `/v1/metrics/network/${a.deviceId}?limit=2&offset=1`, { headers: a.userHeaders })
    expect(page.body).toMatchObject({ limit: 2, offset: 1, total: 5 })
    expect(page.body.items.map((x: { packets_sent: number }) => x.packets_sent)).toEqual([12003, 12002])
    expect(page.body.items[0].wifi).toEqual({ ssid: 'office', signal_dbm: -54, frequency_ghz: 5 })

    const range = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?start_date=2026-01-01T00:00:10Z&end_date=2026-01-01T00:00:30Z`, {
      headers: a.userHeaders,
    })
    expect(range.body.total).toBe(3)
    expect(range.body.items.map((x: { recorded_at: string }) => x.recorded_at)).toEqual([
      '2026-01-01T00:00:30.000Z',
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:10.000Z',
    ])
  })

  test('422 outside the bounds', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    for (const q of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc', 'start_date=yesterday']) {
      const r = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?${q}`, { headers: a.userHeaders })
      expect([q, r.status]).toEqual([q, 422])
      expect(r.body.detail[0].loc).toEqual(['query', q.split('=')[0]])
    }
    expect((await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?limit=1000`, { headers: a.userHeaders })).status).toBe(200)
  })
})

describe('GET /v1/metrics/{kind}/{device_id}/latest', () => {
  test('404 no_metrics before the first sample', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const r = await t.request('GET', `/v1/metrics/network/${a.deviceId}/latest`, { headers: a.userHeaders })
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('no_metrics')
    await post(t, a.keyHeaders, 1)
    t.clock.advance(1000)
    await post(t, a.keyHeaders, 2)
    const l = await t.request('GET', `/v1/metrics/network/${a.deviceId}/latest`, { headers: a.userHeaders })
    expect(l.body.packets_sent).toBe(12002)
  })
})

describe('the latest sample is what was sent', () => {
  test("every field, the top processes and fields the contract does not name included: the bytes of a history page's first item, hot and sealed", async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const hardware = {
      ...hardwareSample(3),
      top_processes: { cpu: [{ name: 'postgres', cpu_percent: 12.5, pid: 812 }], memory: [{ name: 'java', rss_mb: 2048 }] },
      vendor_extra: { firmware: 'v2.1', fan_curve: [30, 45.5, -0] },
    }
    const network = { ...networkSample(3), carrier_extra: { apn: 'iot', rssi: -71.25 } }
    const r = await t.request('POST', '/v1/metrics/batch', { body: { hardware, network }, headers: a.keyHeaders })
    expect(r.status).toBe(201)
    const answers = async (headers: Record<string, string>) => {
      const out: Record<string, unknown> = {}
      for (const kind of ['hardware', 'network']) {
        const latest = await t.request('GET', `/v1/metrics/${kind}/${a.deviceId}/latest`, { headers })
        const page = (await t.request('GET', `/v1/metrics/${kind}/${a.deviceId}?limit=1`, { headers })).text
        expect(latest.status).toBe(200)
        expect(latest.headers.get('content-type')).toContain('application/json')
        expect(latest.text).toBe(page.slice('{"items":['.length, page.indexOf('],"limit":')))
        out[kind] = latest.body
      }
      return out
    }
    const hot = await answers(a.userHeaders)
    expect(hot.hardware).toMatchObject({ top_processes: hardware.top_processes, vendor_extra: { firmware: 'v2.1', fan_curve: [30, 45.5, 0] } })
    expect(hot.network).toMatchObject({ carrier_extra: network.carrier_extra, interfaces: network.interfaces })
    // an hour and more later the sample is in its block: the same answers
    t.clock.advance(2 * 3_600_000)
    await t.modules.sealer.run()
    expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_block_index').get()!.n).toBe(1)
    // a fresh token: the clock moved past the first one's life
    const token = await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })
    expect(await answers({ authorization: `Bearer ${token}` })).toEqual(hot)
  })
})

describe('GET /v1/metrics/summary/{device_id}', () => {
  test('avg, min, max, p95, last, counts and byte deltas from raw samples', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const start = t.clock.now()
    // 20 samples; the byte counter restarts (reboot) after the 10th
    for (let i = 0; i < 20; i++) {
      await post(t, a.keyHeaders, i, { bytes_sent_total: i < 10 ? 1000 + i * 100 : (i - 10) * 50 })
      t.clock.advance(10_000)
    }
    t.clock.advance(-10_000)
    const r = await t.request('GET', `/v1/metrics/summary/${a.deviceId}?hours=1`, { headers: a.userHeaders })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ device_id: a.deviceId, hours: 1, resolution: 'raw', to: new Date(t.clock.now()).toISOString() })
    expect(r.body.hardware.samples).toBe(20)
    expect(r.body.hardware.first_at).toBe(new Date(start).toISOString())
    expect(r.body.hardware.last_at).toBe(new Date(start + 190_000).toISOString())
    const cpu = r.body.hardware.fields.cpu_percent // 20..39
    expect(cpu).toEqual({ avg: 29.5, min: 20, max: 39, p95: 38, last: 39 })
    expect(r.body.hardware.fields.gpu_load).toBeUndefined()
    expect(r.body.hardware.fields.disk_used_percent.max).toBe(38.3)
    // 900 before the restart, then 0 → 450 after it (the first reading after a reset counts from zero)
    expect(r.body.network.bytes_sent_delta).toBe(900 + 0 + 450)
    expect(r.body.network.bytes_recv_delta).toBe(19 * 5000)
  })

  test('last is the newest value sent, also once the buckets holding it are rolled up', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    // 70 samples at 10 s over two 10-minute buckets (cpu_percent 20..69, then 20..39); the
    // temperature stops after the 50th. Then the device falls quiet for 40 minutes: every bucket
    // holding them is complete and answers the 24-hour summary
    for (let i = 0; i < 70; i++) {
      const hardware = { ...hardwareSample(i), cpu_temp_c: i < 50 ? 40 + i / 4 : null }
      const r = await t.request('POST', '/v1/metrics/batch', { body: { hardware, network: networkSample(i) }, headers: a.keyHeaders })
      expect(r.status).toBe(201)
      t.clock.advance(10_000)
    }
    t.clock.advance(40 * 60_000)
    // a fresh token: the clock moved past the first one's life
    const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
    const day = await t.request('GET', `/v1/metrics/summary/${a.deviceId}?hours=24`, { headers })
    const hour = await t.request('GET', `/v1/metrics/summary/${a.deviceId}?hours=1`, { headers })
    expect([day.body.resolution, hour.body.resolution]).toEqual(['10m', 'raw'])
    expect(day.body.hardware.fields.cpu_percent).toMatchObject({ min: 20, max: 69, last: 39 })
    expect(day.body.hardware.fields.cpu_temp_c).toMatchObject({ min: 40, max: 52.25, last: 52.25 })
    for (const kind of ['hardware', 'network'] as const) {
      for (const [name, stats] of Object.entries(hour.body[kind].fields as Record<string, { last: number }>)) {
        expect([kind, name, day.body[kind].fields[name].last]).toEqual([kind, name, stats.last])
      }
    }
  })

  test("a tier's p95 is over one average per bucket, so it does not move when the newest bucket completes", async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const cpu = (i: number) => (i * 37) % 97
    // 25 minutes at 10 s: two whole 10-minute buckets and half of a third
    for (let i = 0; i < 150; i++) {
      const r = await t.request('POST', '/v1/metrics/batch', {
        body: { hardware: { ...hardwareSample(i), cpu_percent: cpu(i) }, network: networkSample(i) },
        headers: a.keyHeaders,
      })
      expect(r.status).toBe(201)
      t.clock.advance(10_000)
    }
    const summary = async () => {
      const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
      const r = await t.request('GET', `/v1/metrics/summary/${a.deviceId}?hours=24`, { headers })
      expect(r.body.resolution).toBe('10m')
      return r.body
    }
    t.clock.advance(30_000)
    const third = await summary() // the third bucket is not complete: it is read from finer levels
    t.clock.advance(20 * 60_000)
    const whole = await summary() // every bucket complete
    const averages = [0, 60, 120].map((s) => {
      const v = Array.from({ length: Math.min(60, 150 - s) }, (_, k) => cpu(s + k))
      return v.reduce((p, q) => p + q, 0) / v.length
    })
    expect(whole.hardware.fields.cpu_percent.p95).toBeCloseTo(Math.max(...averages), 10)
    // every figure the same; the averages summed in another grouping may differ in the last bit
    type Stats = Record<string, { avg: number; min: number; max: number; p95: number; last: number }>
    for (const kind of ['hardware', 'network'] as const) {
      const [before, after] = [third[kind].fields as Stats, whole[kind].fields as Stats]
      expect(Object.keys(before)).toEqual(Object.keys(after))
      for (const [name, { avg, ...exact }] of Object.entries(after)) {
        const { avg: was, ...same } = before[name]!
        expect([name, same]).toEqual([name, exact])
        expect(was).toBeCloseTo(avg, 9)
      }
    }
  })

  test('an empty window', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const r = await t.request('GET', `/v1/metrics/summary/${a.deviceId}`, { headers: a.userHeaders })
    expect(r.status).toBe(200)
    expect(r.body.hours).toBe(24)
    expect(r.body.hardware).toEqual({ samples: 0, first_at: null, last_at: null, fields: {} })
    expect(r.body.network).toEqual({ samples: 0, first_at: null, last_at: null, fields: {}, bytes_sent_delta: null, bytes_recv_delta: null })
  })

  test('hours 1 to 168', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    for (const h of ['0', '169', 'x']) {
      expect((await t.request('GET', `/v1/metrics/summary/${a.deviceId}?hours=${h}`, { headers: a.userHeaders })).status).toBe(422)
    }
    expect((await t.request('GET', `/v1/metrics/summary/${a.deviceId}?hours=168`, { headers: a.userHeaders })).body.resolution).toBe('1h')
  })
})

describe('tenant isolation on every device-scoped read', () => {
  test("another tenant's device is 404; no token is 401", async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const b = await tenantWithDevices(t)
    await post(t, a.keyHeaders, 1)
    const paths = ['hardware', 'network', 'hardware/{id}/latest', 'network/{id}/latest', 'summary/{id}'].map((p) =>
      p.includes('{id}') ? `/v1/metrics/${p.replace('{id}', a.deviceId)}` : `/v1/metrics/${p}/${a.deviceId}`,
    )
    for (const path of paths) {
      expect([path, (await t.request('GET', path, { headers: b.userHeaders })).status]).toEqual([path, 404])
      expect([path, (await t.request('GET', path)).status]).toEqual([path, 401])
      expect([path, (await t.request('GET', path, { headers: a.keyHeaders })).status]).toEqual([path, 401])
      expect([path, (await t.request('GET', path, { headers: a.userHeaders })).status]).toEqual([path, 200])
    }
  })
})
