import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { openDatabase } from '../../../src/db/connection'
import { channelsForSeverity, deliveriesPage, enqueueNotification } from '../../../src/modules/channels/channels.delivery'
import { RETRY_DELAYS_MS } from '../../../src/modules/channels/channels.attempt'
import { channelsTestApp, FIRING, type ChannelsTestApp } from '../../helpers/channels'
import { fakeNotifyService, type FakeNotifyService } from '../../helpers/fake-notify'
import { createTenant } from '../../helpers/fixtures'
import { tempDirs } from '../../helpers/temp-dirs'

let fake: FakeNotifyService
beforeAll(() => {
  fake = fakeNotifyService()
})
afterAll(() => fake.stop())

const hook = (path = '/hook') => `http://hooks.example.test:${fake.port}${path}`

async function withChannel(t: ChannelsTestApp, body: Record<string, unknown> = {}) {
  const tenant = await createTenant(t)
  const res = await t.request('POST', '/v1/channels', {
    headers: tenant.userHeaders,
    body: { name: 'hook', kind: 'webhook', config: { url: hook() }, ...body },
  })
  expect(res.status).toBe(201)
  return { tenant, id: res.body.id as string }
}

/** the delivery log as the API shows it (through the service: the test's clock outruns access tokens) */
const log = async (t: ChannelsTestApp, tenant: { clientId: string }, id: string) => deliveriesPage(t.channels, tenant.clientId, id, { limit: 50, offset: 0 })

describe('retries', () => {
  test('a 500 is retried on the schedule, then delivered; every attempt is logged', async () => {
    const t = channelsTestApp()
    const { tenant, id } = await withChannel(t)
    t.worker.start()
    fake.received.length = 0
    fake.answer({ status: 500, body: 'upstream exploded' }, { status: 503 })
    await enqueueNotification(t.channels, tenant.clientId, [id], FIRING)
    await t.worker.idle()
    let page = await log(t, tenant, id)
    expect(page.items[0]!).toMatchObject({ status: 'pending' })
    // full jitter: somewhere in the first step, never sooner than a second
    const wait = Date.parse(page.items[0]!.next_attempt_at!) - t.clock.now()
    expect(wait).toBeGreaterThanOrEqual(1000)
    expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_MS[0]!)
    expect(page.items[0]!.attempts[0]).toMatchObject({
      attempt: 1,
      http_status: 500,
      outcome: 'http_error',
      error: 'the service answered HTTP 500',
      excerpt: 'upstream exploded',
    })
    // nothing happens before it is due
    t.clock.advance(wait - 1)
    t.timers.fire()
    await t.worker.idle()
    expect(fake.received).toHaveLength(1)
    t.clock.advance(1)
    t.timers.fire()
    await t.worker.idle()
    expect(fake.received).toHaveLength(2)
    t.clock.advance(RETRY_DELAYS_MS[1]!)
    t.timers.fire()
    await t.worker.idle()
    page = await log(t, tenant, id)
    expect(fake.received).toHaveLength(3)
    expect(page.items[0]!.status).toBe('delivered')
    expect(page.items[0]!.attempts.map((a) => a.http_status)).toEqual([500, 503, 200])
    expect(page.items[0]!.next_attempt_at).toBeNull()
    expect(fake.received.every((r) => r.body === fake.received[0]!.body)).toBe(true)
    await t.worker.stop()
  })

  test('429 waits for Retry-After when it is longer than the schedule', async () => {
    const t = channelsTestApp()
    const { tenant, id } = await withChannel(t)
    t.worker.start()
    fake.answer({ status: 429, headers: { 'retry-after': '120' } })
    await enqueueNotification(t.channels, tenant.clientId, [id], FIRING)
    await t.worker.idle()
    const page = await log(t, tenant, id)
    expect(page.items[0]!.attempts[0]!.outcome).toBe('rate_limited')
    expect(page.items[0]!.next_attempt_at).toBe(new Date(t.clock.now() + 120_000).toISOString())
    await t.worker.stop()
  })

  test('503 with Retry-After waits for it too, as webhooks do', async () => {
    const t = channelsTestApp()
    const { tenant, id } = await withChannel(t)
    t.worker.start()
    fake.answer({ status: 503, headers: { 'retry-after': '600' } })
    await enqueueNotification(t.channels, tenant.clientId, [id], FIRING)
    await t.worker.idle()
    const page = await log(t, tenant, id)
    expect(page.items[0]!.attempts[0]!.outcome).toBe('http_error')
    expect(page.items[0]!.next_attempt_at).toBe(new Date(t.clock.now() + 600_000).toISOString())
    await t.worker.stop()
  })

  test('the schedule spent, the delivery fails; a 4xx fails at once', async () => {
    const t = channelsTestApp()
    const { tenant, id } = await withChannel(t)
    t.worker.start()
    fake.answerAlways({ status: 502 })
    await enqueueNotification(t.channels, tenant.clientId, [id], FIRING)
    for (const d of [0, ...RETRY_DELAYS_MS]) {
      t.clock.advance(d)
      t.timers.fire()
      await t.worker.idle()
    }
    let page = await log(t, tenant, id)
    expect(page.items[0]!.status).toBe('failed')
    expect(page.items[0]!.attempts).toHaveLength(1 + RETRY_DELAYS_MS.length)
    fake.answerAlways({ status: 404 })
    await enqueueNotification(t.channels, tenant.clientId, [id], FIRING)
    await t.worker.idle()
    page = await log(t, tenant, id)
    expect(page.items[0]!).toMatchObject({ status: 'failed', finished_at: expect.any(String) })
    expect(page.items[0]!.attempts).toHaveLength(1)
    fake.answerAlways({ status: 200, body: '{"ok":true}' })
    expect(t.logs.some((l) => l.includes('channel delivery attempt failed'))).toBe(true)
    await t.worker.stop()
  })
})

describe('the outbound policy applies to every send', () => {
  test('a name that resolves to a private address is refused for a tenant, nothing is sent, and it reads exactly as an unreachable one', async () => {
    const t = channelsTestApp({ names: { 'lan.example.test': ['192.168.1.20'], 'gone.example.test': [] } })
    const { tenant, id } = await withChannel(t)
    const testAt = async (host: string) => {
      await t.request('PATCH', `/v1/channels/${id}`, { headers: tenant.userHeaders, body: { config: { url: `http://${host}:${fake.port}/x` } } })
      const res = await t.request('POST', `/v1/channels/${id}/test`, { headers: tenant.userHeaders })
      const { ok, outcome, error, http_status } = res.body
      return { ok, outcome, error, http_status }
    }
    fake.received.length = 0
    const refused = await testAt('lan.example.test')
    expect(refused).toMatchObject({ ok: false, outcome: 'unreachable' })
    expect(refused.error).toStartWith('not allowed or not reachable')
    expect(refused.error).not.toContain('192.168')
    expect(refused.error).not.toContain('private')
    expect(fake.received).toHaveLength(0)
    // a name that does not resolve at all: the same words, the same outcome
    expect(await testAt('gone.example.test')).toEqual(refused)
  })

  test("the operator's own account is told the address kind and the setting that allows it", async () => {
    const t = channelsTestApp({ names: { 'relay.example.test': ['127.0.0.1'] } })
    const operator = await createTenant(t, { role: 'admin' })
    const created = await t.request('POST', '/v1/channels', {
      headers: operator.userHeaders,
      body: { name: 'relay', kind: 'webhook', config: { url: `http://relay.example.test:${fake.port}/x` } },
    })
    const res = await t.request('POST', `/v1/channels/${created.body.id}/test`, { headers: operator.userHeaders })
    expect(res.body).toMatchObject({
      ok: false,
      outcome: 'refused',
      error: 'relay.example.test resolves to a loopback address (this server), which is not allowed unless VIGIL_OUTBOUND_ALLOW_LOCAL=true is set',
    })
    const literal = await t.request('POST', '/v1/channels', {
      headers: operator.userHeaders,
      body: { name: 'relay', kind: 'webhook', config: { url: 'http://127.0.0.1:9/x' } },
    })
    expect(literal.status).toBe(422)
    expect(literal.body.error.message).toContain('VIGIL_OUTBOUND_ALLOW_LOCAL=true')
  })

  test('a redirect is not followed and not retried', async () => {
    const t = channelsTestApp()
    const { tenant, id } = await withChannel(t)
    fake.answer({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } })
    const res = await t.request('POST', `/v1/channels/${id}/test`, { headers: tenant.userHeaders })
    expect(res.body).toMatchObject({ ok: false, outcome: 'redirect', http_status: null })
  })

  test('URLs at forbidden addresses are refused when saved', async () => {
    const t = channelsTestApp()
    const tenant = await createTenant(t)
    for (const url of [
      'http://127.0.0.1/x',
      'http://localhost:8080/',
      'http://169.254.169.254/',
      'http://[::ffff:10.0.0.1]/',
      'http://metadata.google.internal/',
    ]) {
      const res = await t.request('POST', '/v1/channels', { headers: tenant.userHeaders, body: { name: 'x', kind: 'webhook', config: { url } } })
      expect([url, res.status, res.body.error.code]).toEqual([url, 422, 'unsafe_url'])
    }
  })
})

describe('the queue', () => {
  test('enqueue keeps only the client’s own enabled channels that take the severity', async () => {
    const t = channelsTestApp()
    const { tenant, id: all } = await withChannel(t)
    const mk = async (body: Record<string, unknown>) =>
      (await t.request('POST', '/v1/channels', { headers: tenant.userHeaders, body: { name: 'c', kind: 'webhook', config: { url: hook() }, ...body } })).body
        .id as string
    const criticalOnly = await mk({ min_severity: 'critical' })
    const disabled = await mk({ enabled: false })
    const other = await withChannel(t)
    const warning = { ...FIRING, severity: 'warning' as const }
    const ids = await enqueueNotification(t.channels, tenant.clientId, [all, criticalOnly, disabled, other.id, 'chn_missing', all], warning)
    expect(ids).toHaveLength(1)
    expect(await enqueueNotification(t.channels, tenant.clientId, [all, criticalOnly], FIRING)).toHaveLength(2)
    expect(await channelsForSeverity(t.channels, tenant.clientId, 'warning')).toEqual([all])
    expect(await channelsForSeverity(t.channels, tenant.clientId, 'critical')).toEqual([all, criticalOnly])
    expect(await enqueueNotification(t.channels, tenant.clientId, [], FIRING)).toEqual([])
  })

  test("a channel deleted while its delivery is in flight: the result is dropped, and every account's notices go on", async () => {
    let release = () => {}
    let arrived = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const inFlight = new Promise<void>((resolve) => (arrived = resolve))
    const slow = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch() {
        arrived()
        await held // the attempt ends only after its channel is gone
        return new Response('ok')
      },
    })
    try {
      const t = channelsTestApp()
      const a = await withChannel(t, { config: { url: `http://hooks.example.test:${slow.port}/x` } })
      t.worker.start()
      const [gone] = await enqueueNotification(t.channels, a.tenant.clientId, [a.id], FIRING)
      await inFlight
      expect((await t.request('DELETE', `/v1/channels/${a.id}`, { headers: a.tenant.userHeaders })).status).toBe(204)
      release()
      await t.worker.idle()

      fake.received.length = 0
      const b = await withChannel(t)
      await enqueueNotification(t.channels, b.tenant.clientId, [b.id], FIRING)
      await t.worker.idle()
      expect(fake.received).toHaveLength(1)
      expect((await log(t, b.tenant, b.id)).items[0]).toMatchObject({ status: 'delivered' })
      expect(t.db.sqlite.query('SELECT count(*) AS n FROM channel_attempts WHERE delivery_id = ?').get(gone!)).toEqual({ n: 0 })
      // dropped as expected, not written and failed (the worker's last resort for a result it cannot write)
      expect(t.logs.filter((l) => l.includes('not recorded') || l.includes('not written'))).toEqual([])
      await t.worker.stop()
    } finally {
      slow.stop(true)
    }
  })

  const dirs = tempDirs('vigil-channels-')
  test('a new app on the same database file sends what the last one left queued, including rows it was sending', async () => {
    const path = join(dirs(), 'vigil.db')
    const secretKey = new Uint8Array(randomBytes(32))
    const first = channelsTestApp({ db: openDatabase(path), secretKey })
    const { tenant, id } = await withChannel(first)
    const [a, b] = [
      (await enqueueNotification(first.channels, tenant.clientId, [id], FIRING))[0]!,
      (await enqueueNotification(first.channels, tenant.clientId, [id], { ...FIRING, title: 'second' }))[0]!,
    ]
    // the first process had taken b when it stopped
    first.db.sqlite.run("UPDATE channel_deliveries SET status = 'sending' WHERE id = ?", [b])
    first.db.close()

    fake.received.length = 0
    const second = channelsTestApp({ db: openDatabase(path), secretKey })
    second.worker.start()
    await second.worker.idle()
    expect(fake.received.map((r) => JSON.parse(r.body).title).sort()).toEqual([FIRING.title, 'second'].sort())
    const status = second.db.sqlite.query<{ id: string; status: string }, []>('SELECT id, status FROM channel_deliveries').all()
    expect(Object.fromEntries(status.map((r) => [r.id, r.status]))).toEqual({ [a]: 'delivered', [b]: 'delivered' })
    await second.worker.stop()
    second.db.close()
  })
})
