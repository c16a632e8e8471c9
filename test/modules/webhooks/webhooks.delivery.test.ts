import { afterEach, describe, expect, test } from 'bun:test'
import { getDelivery, listDeliveries } from '../../../src/modules/webhooks/webhooks.deliveries'
import { getEndpoint } from '../../../src/modules/webhooks/webhooks.service'
import { webhookReceiver, verify, type Received } from '../../helpers/webhook-receiver'
import { tenantWithEndpoint, webhookApp, type WebhookApp } from '../../helpers/webhooks'

let app: WebhookApp | null = null
const receivers: ReturnType<typeof webhookReceiver>[] = []
afterEach(async () => {
  await app?.stop()
  for (const r of receivers.splice(0)) r.stop()
  app = null
})

function receiver(answer?: (r: Received, n: number) => Response | Promise<Response>) {
  const r = webhookReceiver(answer)
  receivers.push(r)
  return r
}

function setup(answer?: (r: Received, n: number) => Response | Promise<Response>) {
  app = webhookApp()
  const r = webhookReceiver(answer)
  receivers.push(r)
  return { t: app, r }
}

const deliveries = async (t: WebhookApp, headers: Record<string, string>, query = '') =>
  (await t.request('GET', `/v1/webhooks/deliveries${query}`, { headers })).body as { items: Record<string, unknown>[]; total: number }

describe('delivery', () => {
  test('an event on the bus reaches a subscribed endpoint at once, signed, as {type, timestamp, data, version}', async () => {
    const { t, r } = setup()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url, ['device.registered'])
    const event = t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1', hostname: 'web-1' })
    // written before publish returned: durable whatever happens next
    expect(t.db.sqlite.query("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get()).toEqual({ n: 1 })
    await t.settle()
    expect(r.requests).toHaveLength(1)
    expect(r.requests[0]!.headers['content-type']).toBe('application/json')
    expect(r.requests[0]!.headers['user-agent']).toStartWith('Vigil-Webhooks/')
    expect(verify(endpoint.secret, r.requests[0]!)).toEqual({
      type: 'device.registered',
      timestamp: event.timestamp,
      data: { device_id: 'dev_1', hostname: 'web-1' },
      version: 1,
    })
    const [d] = (await deliveries(t, tenant.userHeaders)).items
    expect(d).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200, message_id: r.requests[0]!.id, event_type: 'device.registered' })
    const detail = await t.request('GET', `/v1/webhooks/deliveries/${d!.id}`, { headers: tenant.userHeaders })
    expect(detail.body.payload.type).toBe('device.registered')
    expect(detail.body.attempt_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null, response_excerpt: 'ok' })])
  })

  test('only subscribed types, only enabled endpoints; samples and unknown events write nothing', async () => {
    const { t, r } = setup()
    const { tenant } = await tenantWithEndpoint(t, r.url, ['alert.firing'])
    t.ctx.events.publish(tenant.clientId, 'sample', { device_id: 'dev_1' })
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    t.ctx.events.publish(tenant.clientId, 'something.else', {})
    t.ctx.events.publish(tenant.clientId, 'alert.firing', { alert: { id: 'alr_1' } })
    await t.settle()
    expect(r.requests.map((q) => JSON.parse(q.body).type)).toEqual(['alert.firing'])
  })

  test('device.status becomes device.offline and, on return (also through stale), device.online', async () => {
    const { t, r } = setup()
    const { tenant } = await tenantWithEndpoint(t, r.url, ['device.offline', 'device.online'])
    const status = (status: string, previous: string) =>
      t.ctx.events.publish(tenant.clientId, 'device.status', { device_id: 'dev_9', status, previous, last_seen_at: '2026-01-01T00:00:00.000Z' })
    status('stale', 'online') // nothing yet
    status('offline', 'stale')
    status('stale', 'offline')
    status('online', 'stale')
    status('stale', 'online')
    status('online', 'stale') // never offline in between: nothing
    await t.settle()
    const got = r.requests.map((q) => JSON.parse(q.body))
    expect(got.map((p) => p.type)).toEqual(['device.offline', 'device.online'])
    expect(got[0].data).toEqual({ device: { id: 'dev_9', name: null }, status: 'offline', previous: 'stale', last_seen_at: '2026-01-01T00:00:00.000Z' })
  })

  test('a receiver answering 500 then 200 gets its retry within 5 s (full jitter), with the same webhook-id', async () => {
    const { t, r } = setup((_, n) => new Response(n === 1 ? 'boom' : 'ok', { status: n === 1 ? 500 : 200 }))
    const { tenant } = await tenantWithEndpoint(t, r.url)
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    await t.settle()
    const [first] = (await deliveries(t, tenant.userHeaders)).items
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, last_error: 'the receiver answered HTTP 500' })
    const wait = Date.parse(first!.next_attempt_at as string) - t.clock.now()
    expect(wait).toBeGreaterThanOrEqual(1_000)
    expect(wait).toBeLessThanOrEqual(5_000)
    await t.pass(wait - 1)
    expect(r.requests).toHaveLength(1) // not before its time
    await t.pass(1)
    expect(r.requests.map((q) => q.id)).toEqual([r.requests[0]!.id, r.requests[0]!.id])
    expect(r.processed.size).toBe(1)
    const [done] = (await deliveries(t, tenant.userHeaders)).items
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200, next_attempt_at: null })
    const log = (await t.request('GET', `/v1/webhooks/deliveries/${done!.id}`, { headers: tenant.userHeaders })).body.attempt_log
    expect(log.map((a: { status_code: number; response_excerpt: string }) => [a.status_code, a.response_excerpt])).toEqual([
      [500, 'boom'],
      [200, 'ok'],
    ])
  })

  test('Retry-After is honoured: the next attempt waits as long as the receiver asks', async () => {
    const { t, r } = setup(() => new Response('busy', { status: 503, headers: { 'retry-after': '120' } }))
    const { tenant } = await tenantWithEndpoint(t, r.url)
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    await t.settle()
    const [d] = (await deliveries(t, tenant.userHeaders)).items
    expect(Date.parse(d!.next_attempt_at as string) - t.clock.now()).toBe(120_000)
  })

  test('every attempt failing: ten attempts on the schedule, then failed; the answer excerpt is capped at 1 KB', async () => {
    const { t, r } = setup(() => new Response('x'.repeat(5000), { status: 502 }))
    const { tenant } = await tenantWithEndpoint(t, r.url)
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    await t.settle()
    const nextAt = () => t.db.sqlite.query<{ at: number }, []>("SELECT next_attempt_at AS at FROM webhook_deliveries WHERE status = 'pending'").get()?.at
    for (let at = nextAt(); at !== undefined; at = nextAt()) await t.pass(at - t.clock.now())
    expect(r.requests).toHaveLength(10)
    // (days later the access token has expired: read through the service)
    const [d] = (await listDeliveries(t.modules.webhooks, tenant.clientId, { limit: 1, offset: 0 })).items
    expect(d).toMatchObject({ status: 'failed', attempts: 10, next_attempt_at: null })
    const detail = await getDelivery(t.modules.webhooks, tenant.clientId, d!.id)
    expect(detail.attempt_log[0]!.response_excerpt).toBe('x'.repeat(1024))
    // at most about three days from first to last attempt (the sum of the steps), under the five that disable an endpoint
    const span = Date.parse(detail.attempt_log[9]!.at) - Date.parse(detail.attempt_log[0]!.at)
    expect(span).toBeGreaterThan(9_000)
    expect(span).toBeLessThanOrEqual(75.6 * 3600_000 + 5_000)
    expect((await getEndpoint(t.modules.webhooks, tenant.clientId, d!.endpoint_id)).enabled).toBe(true)
  })

  test('an unreachable receiver is a failed attempt with one message whatever the cause', async () => {
    const { t, r } = setup()
    const { tenant } = await tenantWithEndpoint(t, r.url)
    r.stop() // nothing listens there now
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    await t.settle()
    const [d] = (await deliveries(t, tenant.userHeaders)).items
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null })
    expect(d!.last_error).toStartWith('not allowed or not reachable')
  })

  test('resend: the same webhook-id again, at once', async () => {
    const { t, r } = setup()
    const { tenant } = await tenantWithEndpoint(t, r.url)
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    await t.settle()
    const [d] = (await deliveries(t, tenant.userHeaders)).items
    const res = await t.request('POST', `/v1/webhooks/deliveries/${d!.id}/resend`, { headers: tenant.userHeaders })
    expect(res.status).toBe(202)
    await t.settle()
    expect(r.requests.map((q) => q.id)).toEqual([d!.message_id as string, d!.message_id as string])
    expect((await deliveries(t, tenant.userHeaders)).items[0]).toMatchObject({ status: 'succeeded', attempts: 2 })
  })

  test('deliveries page newest first, filtered by endpoint and status', async () => {
    const { t, r } = setup((req) => new Response('', { status: JSON.parse(req.body).data.fail ? 500 : 200 }))
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url)
    for (let i = 0; i < 5; i++) {
      t.ctx.events.publish(tenant.clientId, 'device.registered', { n: i, fail: i % 2 === 0 })
      t.clock.advance(1)
    }
    await t.settle()
    const h = tenant.userHeaders
    expect((await deliveries(t, h, '?status=pending')).total).toBe(3)
    expect((await deliveries(t, h, '?status=succeeded')).total).toBe(2)
    const page = await deliveries(t, h, `?endpoint_id=${endpoint.id}&limit=2&offset=1`)
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 })
    const all = (await deliveries(t, h)).items.map((d) => d.id)
    expect(page.items.map((d) => d.id)).toEqual(all.slice(1, 3))
    expect((await t.request('GET', '/v1/webhooks/deliveries?endpoint_id=whe_nope', { headers: h })).status).toBe(404)
  })

  test("an endpoint deleted while its delivery is in flight: the result is dropped, and every account's deliveries go on", async () => {
    let release = () => {}
    let arrived = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const inFlight = new Promise<void>((resolve) => (arrived = resolve))
    const { t, r } = setup(async (_, n) => {
      if (n === 1) {
        arrived()
        await held // the first request waits until its endpoint is gone
      }
      return new Response('ok')
    })
    const a = await tenantWithEndpoint(t, r.url)
    const test1 = await t.request('POST', `/v1/webhooks/endpoints/${a.endpoint.id}/test`, { headers: a.tenant.userHeaders })
    expect(test1.status).toBe(202)
    await inFlight
    expect((await t.request('DELETE', `/v1/webhooks/endpoints/${a.endpoint.id}`, { headers: a.tenant.userHeaders })).status).toBe(204)
    release()
    await t.settle()
    const other = receiver()
    const b = await tenantWithEndpoint(t, other.url)
    await t.request('POST', `/v1/webhooks/endpoints/${b.endpoint.id}/test`, { headers: b.tenant.userHeaders })
    await t.settle()
    expect(other.requests).toHaveLength(1)
    expect((await deliveries(t, b.tenant.userHeaders)).items[0]).toMatchObject({ status: 'succeeded', attempts: 1 })
    expect(t.db.sqlite.query('SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id = ?').get(test1.body.id)).toEqual({ n: 0 })
    expect(t.logs.some((l) => l.includes('not written') || l.includes('not recorded'))).toBe(false)
  })
})
