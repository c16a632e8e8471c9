import { describe, expect, test } from 'bun:test'
import { testApp, type TestApp } from '../../helpers/app'
import { addMember, createTenant } from '../../helpers/fixtures'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { sseReader } from '../../helpers/sse'
import { manualTimers } from '../../helpers/timers'

type Tenant = Awaited<ReturnType<typeof createTenant>>

async function open(t: TestApp, headers: Record<string, string>, query = '') {
  const res = await t.handle(new Request(`http://localhost/v1/events${query}`, { headers }))
  return { res, sse: sseReader(res) }
}

async function registerDevice(t: TestApp, a: Tenant, fp = 'fp-1'): Promise<string> {
  const r = await t.request('POST', '/v1/clients/me/devices', {
    headers: a.keyHeaders,
    body: { hostname: `host-${fp}`, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: fp },
  })
  expect(r.status).toBe(201)
  return r.body.device_id
}

const postBatch = (t: TestApp, a: Tenant, deviceId: string, i = 1) =>
  t.request('POST', '/v1/metrics/batch', {
    headers: { ...a.keyHeaders, 'x-device-id': deviceId },
    body: { hardware: hardwareSample(i), network: networkSample(i) },
  })

/** an event only this test publishes: what comes after it proves what did not come before */
const marker = (t: TestApp, clientId: string, n = 1) => t.ctx.events.publish(clientId, 'test.marker', { n })

describe('GET /v1/events', () => {
  test('streams the client’s events as text/event-stream frames, samples with their hot fields', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 5 })
    const { res, sse } = await open(t, a.userHeaders)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(await sse.next()).toEqual({ retry: 5000 })

    const deviceId = await registerDevice(t, a)
    const registered = (await sse.event())!
    expect(registered.event).toBe('device.registered')
    expect(registered.id).toBe(`${t.ctx.events.position(a.clientId).epoch}-1`)
    expect(registered.data).toMatchObject({ type: 'device.registered', timestamp: '2026-01-01T00:00:00.000Z' })
    expect(registered.data.data.device).toMatchObject({ device_id: deviceId, hostname: 'host-fp-1', last_seen_at: null })

    expect((await postBatch(t, a, deviceId)).status).toBe(201)
    const status = (await sse.event())!
    expect(status.event).toBe('device.status')
    expect(status.data.data).toEqual({ device_id: deviceId, status: 'online', previous: 'never', last_seen_at: '2026-01-01T00:00:00.000Z' })
    const hw = (await sse.event())!
    expect(hw.event).toBe('sample')
    expect(hw.data.type).toBe('sample')
    expect(hw.data.data).toMatchObject({ device_id: deviceId, kind: 'hardware', recorded_at: '2026-01-01T00:00:00.000Z' })
    // hot numeric fields only (no nested parts, no strings), with the fullest disk derived
    expect(hw.data.data.values).toEqual({
      cpu_percent: 21,
      cpu_count_logical: 4,
      cpu_count_physical: 4,
      cpu_freq_current: 1500,
      cpu_freq_max: 1800,
      ram_total_gb: 7.6,
      ram_used_gb: 3.2,
      ram_available_gb: 4.4,
      ram_percent: 41.2,
      swap_total_gb: 1,
      swap_used_gb: 0.1,
      swap_percent: 10,
      cpu_temp_c: 48.2,
      disk_used_percent: 38.3,
    })
    const net = (await sse.event())!
    expect(net.data.data).toMatchObject({ device_id: deviceId, kind: 'network' })
    expect(net.data.data.values.latency_avg_ms).toBe(networkSample(1).latency_avg_ms)
    expect(Object.values(net.data.data.values).every((v) => typeof v === 'number')).toBe(true)
    const [, seqA] = hw.id!.split('-')
    const [, seqB] = net.id!.split('-')
    expect(Number(seqB)).toBe(Number(seqA) + 1)

    const del = await t.request('DELETE', `/v1/clients/me/devices/${deviceId}`, { headers: a.userHeaders })
    expect(del.status).toBe(204)
    const deleted = (await sse.event())!
    expect(deleted.event).toBe('device.deleted')
    expect(deleted.data.data).toEqual({ device_id: deviceId })
    await sse.cancel()
  })

  test('a repeated sample (same device and recorded_at) is not told again', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const deviceId = await registerDevice(t, a)
    const { sse } = await open(t, a.userHeaders)
    const body = { recorded_at: '2025-12-31T23:59:00Z', hardware: { cpu_percent: 5 } }
    const headers = { ...a.keyHeaders, 'x-device-id': deviceId }
    expect((await t.request('POST', '/v1/metrics/batch', { headers, body })).status).toBe(201)
    expect((await t.request('POST', '/v1/metrics/batch', { headers, body })).status).toBe(201)
    expect((await sse.event())!.event).toBe('device.status')
    expect((await sse.event())!.data.data).toMatchObject({ kind: 'hardware', recorded_at: '2025-12-31T23:59:00.000Z', values: { cpu_percent: 5 } })
    marker(t, a.clientId)
    expect((await sse.event())!.event).toBe('test.marker')
    await sse.cancel()
  })

  test('401 without an access token, with an API key, with an expired token', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const cases: Record<string, string>[] = [{}, a.keyHeaders, { authorization: `Bearer ${a.apiKey}` }, { authorization: 'Bearer nonsense' }]
    for (const headers of cases) {
      const r = await t.request('GET', '/v1/events', { headers })
      expect(r.status).toBe(401)
      expect(r.body.error.code).toBe('unauthorized')
    }
    t.clock.advance(900_000)
    expect((await t.request('GET', '/v1/events', { headers: a.userHeaders })).status).toBe(401)
    expect(t.ctx.events.listenerCount()).toBe(1) // the webhooks' outbox only
  })

  test('a disabled member is refused (403)', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const m = await addMember(t, a.clientId, 'member')
    t.db.sqlite.run("UPDATE members SET status = 'disabled' WHERE user_id = ?", [m.userId])
    const r = await t.request('GET', '/v1/events', { headers: m.headers })
    expect(r.status).toBe(403)
  })

  test('tenant isolation: another client’s events never arrive; its device is 404', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const deviceA = await registerDevice(t, a)
    const { sse } = await open(t, b.userHeaders)
    await postBatch(t, a, deviceA)
    marker(t, a.clientId)
    marker(t, b.clientId, 2)
    const first = (await sse.event())!
    expect(first.event).toBe('test.marker')
    expect(first.data.data).toEqual({ n: 2 })
    await sse.cancel()

    const other = await t.request('GET', `/v1/events?device_id=${deviceA}`, { headers: b.userHeaders })
    expect(other.status).toBe(404)
    expect(other.body.error.code).toBe('not_found')
    const unknown = await t.request('GET', '/v1/events?device_id=dev_nope', { headers: a.userHeaders })
    expect(unknown.status).toBe(404)
  })

  test('device_id narrows the stream to one device; bad values are 422', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 5 })
    const one = await registerDevice(t, a, 'one')
    const two = await registerDevice(t, a, 'two')
    const { sse } = await open(t, a.userHeaders, `?device_id=${two}`)
    await postBatch(t, a, one)
    await postBatch(t, a, two)
    const events = [(await sse.event())!, (await sse.event())!, (await sse.event())!]
    expect(events.map((e) => [e.event, e.data.data.device_id])).toEqual([
      ['device.status', two],
      ['sample', two],
      ['sample', two],
    ])
    await sse.cancel()

    for (const q of ['?device_id=', `?device_id=${'x'.repeat(101)}`, `?device_id=${one}&device_id=${two}`]) {
      const r = await t.request('GET', `/v1/events${q}`, { headers: a.userHeaders })
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['query', 'device_id'])
    }
  })

  test('Last-Event-ID resumes: the missed events are replayed in order, then the live ones', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const first = await open(t, a.userHeaders)
    marker(t, a.clientId, 1)
    const seen = (await first.sse.event())!
    await first.sse.cancel()
    marker(t, a.clientId, 2)
    marker(t, a.clientId, 3)
    const again = await open(t, { ...a.userHeaders, 'last-event-id': seen.id! })
    marker(t, a.clientId, 4)
    const got = [(await again.sse.event())!, (await again.sse.event())!, (await again.sse.event())!]
    expect(got.map((e) => e.data.data.n)).toEqual([2, 3, 4])
    expect(got.some((e) => e.event === 'reset')).toBe(false)
    await again.sse.cancel()
  })

  test('a point that cannot be resumed (another run, too old, malformed) starts with a reset', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    marker(t, a.clientId, 1)
    const cases: [string, string][] = [
      ['zz99zz99-1', 'other_boot'],
      ['garbage', 'malformed'],
      [`${t.ctx.events.position(a.clientId).epoch}-999999`, 'malformed'],
    ]
    for (const [lastEventId, reason] of cases) {
      const { sse } = await open(t, { ...a.userHeaders, 'last-event-id': lastEventId })
      const reset = (await sse.event())!
      expect(reset.event).toBe('reset')
      expect(reset.data).toMatchObject({ type: 'reset', data: { reason } })
      await sse.cancel()
    }
    // more events than the bus keeps for a client: the oldest are gone
    const { sse: before } = await open(t, a.userHeaders)
    marker(t, a.clientId, 2)
    const point = (await before.event())!.id!
    await before.cancel()
    for (let i = 0; i < 600; i++) marker(t, a.clientId, 100 + i)
    marker(t, b.clientId, 9) // another client's event: it moves nothing of a's stream
    const { sse } = await open(t, { ...a.userHeaders, 'last-event-id': point })
    const reset = (await sse.event())!
    expect(reset.data.data).toEqual({ reason: 'too_old' })
    // the reset's id is where the client's stream stands: resuming from it misses nothing and replays nothing old
    const at = t.ctx.events.position(a.clientId)
    expect(reset.id).toBe(`${at.epoch}-${at.seq}`)
    expect(at.seq).toBe(602)
    await sse.cancel()
    marker(t, a.clientId, 7)
    const resumed = await open(t, { ...a.userHeaders, 'last-event-id': reset.id! })
    const next = (await resumed.sse.event())!
    expect([next.event, next.data.data.n]).toEqual(['test.marker', 7])
    await resumed.sse.cancel()
  })

  test('a ping comment every 15 s, by the injected timers', async () => {
    const timers = manualTimers()
    const t = testApp({ timers: timers.timers })
    const a = await createTenant(t)
    const { sse } = await open(t, a.userHeaders)
    expect(await sse.next()).toEqual({ retry: 5000 })
    t.clock.advance(15_000)
    expect(timers.fire()).toBe(1)
    expect(await sse.next()).toEqual({ comment: 'ping' })
    t.clock.advance(15_000)
    timers.fire()
    expect(await sse.next()).toEqual({ comment: 'ping' })
    await sse.cancel()
    expect(timers.pending()).toBe(0)
  })

  test('the stream ends when the access token expires, and frees its slot', async () => {
    const timers = manualTimers()
    const t = testApp({ timers: timers.timers })
    const a = await createTenant(t)
    const baseline = t.ctx.events.listenerCount()
    const { sse } = await open(t, a.userHeaders)
    expect(t.ctx.events.listenerCount()).toBe(baseline + 1)
    // pings until 15 minutes after the token was signed
    for (let i = 0; i < 59; i++) {
      t.clock.advance(15_000)
      timers.fire()
    }
    t.clock.advance(15_000)
    timers.fire()
    expect(await sse.ended()).toBe(true)
    expect(t.ctx.events.listenerCount()).toBe(baseline)
    expect(t.modules.live.slots.open()).toBe(0)
    expect(timers.pending()).toBe(0)
  })

  test('the stream ends at the next ping once its session is revoked or the membership ends', async () => {
    const timers = manualTimers()
    const t = testApp({ timers: timers.timers })
    const login = await t.request('POST', '/v1/auth/register', { body: { email: 'a@example.test', password: 'correct horse battery' } })
    expect(login.status).toBe(201)
    const tokens = (await t.request('POST', '/v1/auth/login', { body: { email: 'a@example.test', password: 'correct horse battery' } })).body
    const { sse } = await open(t, { authorization: `Bearer ${tokens.access_token}` })
    expect((await t.request('POST', '/v1/auth/logout', { body: { refresh_token: tokens.refresh_token } })).status).toBe(204)
    timers.fire()
    expect(await sse.ended()).toBe(true)

    const a = await createTenant(t)
    const m = await addMember(t, a.clientId, 'member')
    const member = await open(t, m.headers)
    t.db.sqlite.run("UPDATE members SET status = 'disabled' WHERE user_id = ?", [m.userId])
    timers.fire()
    expect(await member.sse.ended()).toBe(true)
    expect(t.modules.live.slots.open()).toBe(0)
  })

  test('a reader that goes away unsubscribes: the bus is back to its listeners before', async () => {
    const timers = manualTimers()
    const t = testApp({ timers: timers.timers })
    const a = await createTenant(t)
    const baseline = t.ctx.events.listenerCount()
    const streams = [await open(t, a.userHeaders), await open(t, a.userHeaders), await open(t, a.userHeaders, '')]
    expect(t.ctx.events.listenerCount()).toBe(baseline + 3)
    expect(t.modules.live.slots.open()).toBe(3)
    for (const s of streams) await s.sse.cancel()
    expect(t.ctx.events.listenerCount()).toBe(baseline)
    expect(t.modules.live.slots.open()).toBe(0)
    expect(timers.pending()).toBe(0)
    marker(t, a.clientId) // nobody is told, nothing throws
  })

  test('a reader that falls more than 1 MiB behind is dropped', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const baseline = t.ctx.events.listenerCount()
    const { sse } = await open(t, a.userHeaders)
    const big = 'x'.repeat(100_000)
    for (let i = 0; i < 20; i++) t.ctx.events.publish(a.clientId, 'test.big', { big })
    expect(t.ctx.events.listenerCount()).toBe(baseline)
    // what was queued is still read, then the end
    expect(await sse.ended()).toBe(true)
  })

  test("at most 20 streams per user and the account's share (429 too_many_streams); another account is not held back", async () => {
    // a tenth per account: 40
    const t = testApp({ config: { liveMaxStreams: 400 } })
    const a = await createTenant(t)
    const m = await addMember(t, a.clientId, 'member')
    const m2 = await addMember(t, a.clientId, 'member')
    const mine = []
    for (let i = 0; i < 20; i++) mine.push(await open(t, a.userHeaders))
    const refused = await t.request('GET', '/v1/events', { headers: a.userHeaders })
    expect(refused.status).toBe(429)
    expect(refused.body.error.code).toBe('too_many_streams')
    expect(refused.body.error.message).toContain('You have 20 live streams open')
    expect(refused.headers.get('retry-after')).toBe('15')
    // another user of the same client is not held back by the first one's streams, up to the account's share
    const theirs = []
    for (let i = 0; i < 20; i++) theirs.push(await open(t, m.headers))
    for (const s of theirs) expect(s.res.status).toBe(200)
    const full = await t.request('GET', '/v1/events', { headers: m2.headers })
    expect(full.status).toBe(429)
    expect(full.body.error.message).toContain('Your account has 40 live streams open')
    // another account opens its own
    const b = await createTenant(t)
    const other = await open(t, b.userHeaders)
    expect(other.res.status).toBe(200)
    await mine.pop()!.sse.cancel()
    const again = await open(t, m2.headers)
    expect(again.res.status).toBe(200)
    for (const s of [...mine, ...theirs, again, other]) await s.sse.cancel()
    expect(t.modules.live.slots.open()).toBe(0)
  })
})

describe('device status on the stream (devices.status job)', () => {
  test('online at the first sample, stale and offline as reports stop, against the device’s own interval', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const deviceId = await registerDevice(t, a)
    const job = t.jobs.find((j) => j.name === 'devices.status')!
    const { sse } = await open(t, a.userHeaders, `?device_id=${deviceId}`)
    const post = (at: string) =>
      t.request('POST', '/v1/metrics/hardware', { headers: { ...a.keyHeaders, 'x-device-id': deviceId }, body: { recorded_at: at, cpu_percent: 1 } })
    // reports every 10 s: its interval is measured from their recorded_at
    for (let i = 0; i < 3; i++) {
      expect((await post(new Date(t.clock.now()).toISOString())).status).toBe(201)
      if (i < 2) t.clock.advance(10_000)
    }
    const kinds = []
    for (let i = 0; i < 4; i++) kinds.push((await sse.event())!.event)
    expect(kinds).toEqual(['device.status', 'sample', 'sample', 'sample'])

    await job.run()
    // the interval the fleet overview shows too
    expect(t.modules.presence.intervalMs(deviceId)).toBe(10_000)
    t.clock.advance(20_000) // 2 intervals: still online
    await job.run()
    t.clock.advance(1)
    await job.run()
    const stale = (await sse.event())!
    expect(stale.data.data).toEqual({ device_id: deviceId, status: 'stale', previous: 'online', last_seen_at: '2026-01-01T00:00:20.000Z' })
    t.clock.advance(30_000)
    await job.run()
    expect((await sse.event())!.data.data).toMatchObject({ status: 'offline', previous: 'stale' })
    await job.run() // no change, no event
    await post(new Date(t.clock.now()).toISOString())
    expect((await sse.event())!.data.data).toMatchObject({ status: 'online', previous: 'offline' })
    await sse.cancel()
  })

  test('a device that never reported is never; without a measured interval 60 s is assumed', async () => {
    const t = testApp()
    const a = await createTenant(t)
    const deviceId = await registerDevice(t, a)
    const job = t.jobs.find((j) => j.name === 'devices.status')!
    await job.run()
    expect(t.modules.presence.status(deviceId)).toBe('never')
    await t.request('POST', '/v1/metrics/hardware', { headers: { ...a.keyHeaders, 'x-device-id': deviceId }, body: { cpu_percent: 1 } })
    t.clock.advance(120_000)
    await job.run()
    expect(t.modules.presence.intervalMs(deviceId)).toBeNull()
    expect(t.modules.presence.status(deviceId)).toBe('online')
    t.clock.advance(1)
    await job.run()
    expect(t.modules.presence.status(deviceId)).toBe('stale')
  })

  test('after a restart the stored last_seen_at sets the status, told to no one until it changes', async () => {
    const before = testApp()
    const a = await createTenant(before)
    const deviceId = await registerDevice(before, a)
    await postBatch(before, a, deviceId)
    before.clock.advance(3_600_000)
    // the same database and clock, a new process
    const t = testApp({ db: before.db, clock: before.clock })
    const token = await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })
    const { sse } = await open(t, { authorization: `Bearer ${token}` })
    expect(t.modules.presence.status(deviceId)).toBe('offline')
    await t.jobs.find((j) => j.name === 'devices.status')!.run()
    await postBatch(t, a, deviceId, 2)
    expect((await sse.event())!.data.data).toMatchObject({ device_id: deviceId, status: 'online', previous: 'offline' })
    await sse.cancel()
  })
})
