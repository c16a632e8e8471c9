import { describe, expect, test } from 'bun:test'
import { runRollup } from '../../../src/modules/metrics/metrics.jobs'
import { testApp, type TestApp } from '../../helpers/app'
import { addMember, createTenant } from '../../helpers/fixtures'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.parse('2026-01-01T00:00:00Z')
const MIN = 60_000

/** `count` batches `stepMs` apart, the last at the clock's now, as a collector would have sent them. */
async function report(t: TestApp, headers: Record<string, string>, count: number, stepMs: number, cpu: (ts: number) => number) {
  const now = t.clock.now()
  const items = Array.from({ length: count }, (_, i) => {
    const ts = now - (count - 1 - i) * stepMs
    return { recorded_at: new Date(ts).toISOString(), hardware: { ...hardwareSample(i), cpu_percent: cpu(ts) }, network: networkSample(i) }
  })
  for (let a = 0; a < items.length; a += 500) {
    const r = await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(a, a + 500) }, headers })
    if (r.status !== 201) throw new Error(`bulk: ${r.status} ${r.text}`)
  }
}

const fresh = async (t: TestApp, a: { userId: string; clientId: string }) => ({
  authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}`,
})

describe('GET /v1/clients/me/fleet', () => {
  test('every device with status by its own interval, newest figures and a 60-minute CPU sparkline', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 3)
    const [fast, slow, idle] = a.deviceIds as [string, string, string]
    await t.request('PATCH', `/v1/clients/me/devices/${fast}`, { body: { name: 'Web', tags: ['prod'] }, headers: a.userHeaders })
    t.clock.set(T0 + 2 * 3_600_000)
    // fast: every 10 s for the last 90 minutes, cpu = the sample's minute within the hour
    await report(t, { ...a.keyHeaders, 'x-device-id': fast }, 540, 10_000, (ts) => new Date(ts).getUTCMinutes())
    // slow: every 5 minutes
    await report(t, { ...a.keyHeaders, 'x-device-id': slow }, 12, 5 * MIN, () => 3)
    await runRollup(t.modules.metricsJobs)
    t.clock.advance(15_000) // 15 s later: fast is within 2 × 10 s
    const h = await fresh(t, a)
    const r = await t.request('GET', '/v1/clients/me/fleet', { headers: h })
    expect(r.status).toBe(200)
    expect(r.body.generated_at).toBe('2026-01-01T02:00:15.000Z')
    expect(r.body.devices.map((d: { id: string }) => d.id)).toEqual([fast, slow, idle])
    const [f, s, i] = r.body.devices
    expect(f).toMatchObject({
      id: fast,
      name: 'Web',
      hostname: 'h0',
      os: 'linux',
      tags: ['prod'],
      status: 'online',
      interval_seconds: 10,
      cpu_percent: 0,
      ram_percent: 41.2,
      disk_used_percent: 38.3,
      cpu_temp_c: 48.2,
      download_mbps: 8.4,
      upload_mbps: 1.2,
      latency_avg_ms: 12.3,
      packet_loss_percent: 0,
      alerts_firing: 0,
    })
    expect(f.last_seen_at).toBe('2026-01-01T02:00:00.000Z')
    expect(f.cpu_spark).toHaveLength(60)
    // minutes 01:01 … 02:00; the last ones come from raw samples (not rolled up yet)
    expect(t.modules.metrics.store.doneUntil('hardware')['1m']).toBeLessThan(T0 + 2 * 3_600_000)
    expect(f.cpu_spark.slice(0, 3)).toEqual([1, 2, 3])
    expect(f.cpu_spark.at(-2)).toBe(59)
    expect(f.cpu_spark.at(-1)).toBe(0)

    expect(s).toMatchObject({ status: 'online', interval_seconds: 300, cpu_percent: 3 })
    expect(s.cpu_spark.filter((v: number | null) => v !== null)).toEqual(new Array(12).fill(3))
    expect(i).toMatchObject({ status: 'never', interval_seconds: null, last_seen_at: null, cpu_percent: null, latency_avg_ms: null })
    expect(i.cpu_spark).toEqual(new Array(60).fill(null))

    // the fast device goes stale past 2 × 10 s and offline past 5 ×; the slow one by its 5 minutes
    const statuses = async () =>
      (await t.request('GET', '/v1/clients/me/fleet', { headers: await fresh(t, a) })).body.devices.map((d: { status: string }) => d.status)
    t.clock.advance(20_000) // 35 s
    expect(await statuses()).toEqual(['stale', 'online', 'never'])
    t.clock.advance(85_000) // 2 min
    expect(await statuses()).toEqual(['offline', 'online', 'never'])
    t.clock.advance(18 * MIN) // 20 min
    expect(await statuses()).toEqual(['offline', 'stale', 'never'])
    t.clock.advance(10 * MIN) // 30 min
    expect(await statuses()).toEqual(['offline', 'offline', 'never'])
  })

  test('the sparkline follows the clock and the rollup between answers (its tier minutes are kept per device)', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 1)
    t.clock.set(T0 + 3_600_000)
    await report(t, a.keyHeaders, 360, 10_000, () => 10)
    await runRollup(t.modules.metricsJobs)
    const spark = async () => (await t.request('GET', '/v1/clients/me/fleet', { headers: await fresh(t, a) })).body.devices[0].cpu_spark
    expect(await spark()).toEqual(new Array(60).fill(10))
    // five minutes later with new samples at 50 %, some rolled up, the rest still raw
    for (let m = 0; m < 5; m++) {
      t.clock.advance(MIN)
      await report(t, a.keyHeaders, 6, 10_000, () => 50)
      if (m < 3) await runRollup(t.modules.metricsJobs)
    }
    // minutes 00:06–00:59 at 10, 01:00 mixes its first sample (10) with five at 50 (43.3, shown whole), then 50
    expect(await spark()).toEqual([...new Array(54).fill(10), 43, 50, 50, 50, 50, 50])
    // a late sample in a minute the tier has already rolled (within the re-read window) shows up once rolled again
    await t.request('POST', '/v1/metrics/bulk', {
      body: { items: [{ recorded_at: new Date(t.clock.now() - 5 * MIN + 5_000).toISOString(), hardware: { cpu_percent: 110 } }] },
      headers: a.keyHeaders,
    })
    t.clock.advance(MIN)
    await runRollup(t.modules.metricsJobs)
    const after = await spark()
    expect(after).toHaveLength(60)
    expect(after.slice(0, 53)).toEqual(new Array(53).fill(10))
    expect(after[53]).toBeGreaterThan(50)
    // an hour of silence: every minute empty
    t.clock.advance(61 * MIN)
    await runRollup(t.modules.metricsJobs)
    expect(await spark()).toEqual(new Array(60).fill(null))
  })

  test('alerts firing come from the alerts port', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 2)
    t.modules.overview.alertsFiring = (clientId) => new Map(clientId === a.clientId ? [[a.deviceIds[1]!, 2]] : [])
    const r = await t.request('GET', '/v1/clients/me/fleet', { headers: a.userHeaders })
    expect(r.body.devices.map((d: { alerts_firing: number }) => d.alerts_firing)).toEqual([0, 2])
  })

  test('only the caller’s devices; a member may read; no token is 401', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 2)
    const b = await createTenant(t)
    expect((await t.request('GET', '/v1/clients/me/fleet', { headers: b.userHeaders })).body.devices).toEqual([])
    const member = await addMember(t, a.clientId, 'member')
    expect((await t.request('GET', '/v1/clients/me/fleet', { headers: member.headers })).body.devices).toHaveLength(2)
    expect((await t.request('GET', '/v1/clients/me/fleet')).status).toBe(401)
  })
})
