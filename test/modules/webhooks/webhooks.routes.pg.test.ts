import { afterEach, describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { createTenant } from '../../helpers/fixtures'
import { manualTimers } from '../../helpers/timers'
import { type Received, verify, webhookReceiver } from '../../helpers/webhook-receiver'

/**
 * The webhook routes and worker of a hub on PostgreSQL: endpoints, a signed delivery to a local
 * receiver, its retries and the endpoint disabled by a 410, with the rows in PostgreSQL.
 */
const pgApp = pgTestAppLifecycle()
const receivers: ReturnType<typeof webhookReceiver>[] = []
const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop()
  for (const r of receivers.splice(0)) r.stop()
})

async function setup(answer?: (r: Received, n: number) => Response | Promise<Response>) {
  const timers = manualTimers()
  const t = await pgApp.make({ clock: manualClock(Date.now()), timers: timers.timers, config: { outbound: { allowPrivate: false, allowLocal: true } } })
  await t.modules.webhookWorker.start()
  stops.push(() => t.modules.webhookWorker.stop())
  const r = webhookReceiver(answer)
  receivers.push(r)
  /** a tenant; its client row also in PostgreSQL, where the identity stores do not write in this build */
  const tenant = async () => {
    const made = await createTenant(t)
    await t.sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${made.clientId}, 'tenant', 0, 0) ON CONFLICT DO NOTHING`
    return made
  }
  /** the events heard are stored, then the worker has sent what is due */
  const settle = async () => {
    await t.modules.webhookEvents.settled()
    await t.modules.webhookWorker.idle()
  }
  const pass = async (ms: number) => {
    t.clock.advance(ms)
    timers.fire()
    await settle()
  }
  return { t, r, tenant, pass, settle }
}

describe('webhooks on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(`endpoints: create with the secret once, read, change, 404 for another tenant, delete ${pgApp.skipReason}`, async () => {
    const { t, r, tenant } = await setup()
    const a = await tenant()
    const b = await tenant()
    const made = await t.request('POST', '/v1/webhooks/endpoints', { headers: a.userHeaders, body: { url: r.url, event_types: ['device.registered'] } })
    expect(made.status).toBe(201)
    expect(made.body.secret).toStartWith('whsec_')
    const id = made.body.id
    // sealed at rest: the secret is not in the row
    const [row] = await t.sql`SELECT secret_enc FROM webhook_endpoints WHERE id = ${id}`
    expect(row.secret_enc).not.toContain(made.body.secret.slice(6))
    const list = await t.request('GET', '/v1/webhooks/endpoints', { headers: a.userHeaders })
    expect(list.body).toEqual([{ ...made.body, secret: null }])
    const changed = await t.request('PATCH', `/v1/webhooks/endpoints/${id}`, { headers: a.userHeaders, body: { description: 'ops', enabled: false } })
    expect(changed.body).toMatchObject({ description: 'ops', enabled: false, disabled_reason: 'manual' })
    for (const [method, path] of [
      ['GET', `/v1/webhooks/endpoints/${id}`],
      ['PATCH', `/v1/webhooks/endpoints/${id}`],
      ['DELETE', `/v1/webhooks/endpoints/${id}`],
    ] as const) {
      const res = await t.request(method, path, { headers: b.userHeaders, body: method === 'PATCH' ? { description: 'stolen' } : undefined })
      expect([method, res.status]).toEqual([method, 404])
    }
    expect((await t.request('POST', '/v1/webhooks/endpoints', { headers: a.userHeaders, body: { url: 'not a url', event_types: [] } })).status).toBe(422)
    expect((await t.request('DELETE', `/v1/webhooks/endpoints/${id}`, { headers: a.userHeaders })).status).toBe(204)
    expect((await t.request('GET', '/v1/webhooks/endpoints', { headers: a.userHeaders })).body).toEqual([])
  })

  test.skipIf(pgApp.skip)(`an event reaches the endpoint signed; a failure is retried on schedule and logged per attempt ${pgApp.skipReason}`, async () => {
    const { t, r, tenant, pass, settle } = await setup((_req, n) => new Response(n === 1 ? 'busy' : 'ok', { status: n === 1 ? 503 : 200 }))
    const a = await tenant()
    const made = await t.request('POST', '/v1/webhooks/endpoints', { headers: a.userHeaders, body: { url: r.url, event_types: ['device.registered'] } })
    t.ctx.events.publish(a.clientId, 'device.registered', { device_id: 'dev_1', hostname: 'web-1' })
    await settle()
    expect(r.requests).toHaveLength(1)
    expect(verify(made.body.secret, r.requests[0]!)).toMatchObject({ type: 'device.registered', data: { device_id: 'dev_1' }, version: 1 })
    const listed = await t.request('GET', '/v1/webhooks/deliveries', { headers: a.userHeaders })
    expect(listed.body.items).toHaveLength(1)
    expect(listed.body.items[0]).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 503 })
    // the retry's time comes: the same webhook-id, now answered 200
    await pass(5_000)
    expect(r.requests.map((q) => q.id)).toEqual([r.requests[0]!.id, r.requests[0]!.id])
    const detail = await t.request('GET', `/v1/webhooks/deliveries/${listed.body.items[0].id}`, { headers: a.userHeaders })
    expect(detail.body).toMatchObject({ status: 'succeeded', attempts: 2 })
    expect(detail.body.attempt_log.map((x: { status_code: number; response_excerpt: string }) => [x.status_code, x.response_excerpt])).toEqual([
      [503, 'busy'],
      [200, 'ok'],
    ])
    // a test send and a resend go out at once too
    const sent = await t.request('POST', `/v1/webhooks/endpoints/${made.body.id}/test`, { headers: a.userHeaders })
    expect(sent.status).toBe(202)
    await settle()
    const resent = await t.request('POST', `/v1/webhooks/deliveries/${sent.body.id}/resend`, { headers: a.userHeaders })
    expect(resent.status).toBe(202)
    await settle()
    expect(r.requests.filter((q) => q.id === sent.body.message_id)).toHaveLength(2)
  })

  test.skipIf(pgApp.skip)(
    `an endpoint that answers 410 is disabled once, its owners told; enabling it again sends its events ${pgApp.skipReason}`,
    async () => {
      let gone = true
      const { t, r, tenant, settle } = await setup(() => new Response('', { status: gone ? 410 : 200 }))
      const a = await tenant()
      const told: unknown[] = []
      t.ctx.events.subscribeAll((e) => void (e.type === 'endpoint.disabled' && told.push(e.data)))
      const made = await t.request('POST', '/v1/webhooks/endpoints', { headers: a.userHeaders, body: { url: r.url, event_types: ['device.registered'] } })
      t.ctx.events.publish(a.clientId, 'device.registered', { device_id: 'dev_1' })
      t.ctx.events.publish(a.clientId, 'device.registered', { device_id: 'dev_2' })
      await settle()
      await settle()
      const endpoint = await t.request('GET', `/v1/webhooks/endpoints/${made.body.id}`, { headers: a.userHeaders })
      expect(endpoint.body).toMatchObject({ enabled: false, disabled_reason: 'gone' })
      expect(told).toHaveLength(1)
      // off: a new event writes nothing
      const before = (await t.request('GET', '/v1/webhooks/deliveries', { headers: a.userHeaders })).body.total
      t.ctx.events.publish(a.clientId, 'device.registered', { device_id: 'dev_3' })
      await settle()
      expect((await t.request('GET', '/v1/webhooks/deliveries', { headers: a.userHeaders })).body.total).toBe(before)
      gone = false
      const on = await t.request('PATCH', `/v1/webhooks/endpoints/${made.body.id}`, { headers: a.userHeaders, body: { enabled: true } })
      expect(on.body).toMatchObject({ enabled: true, disabled_reason: null })
      const sentBefore = r.requests.length
      t.ctx.events.publish(a.clientId, 'device.registered', { device_id: 'dev_4' })
      await settle()
      await settle()
      expect(r.requests.length).toBeGreaterThan(sentBefore)
      expect(JSON.parse(r.requests.at(-1)!.body).data).toMatchObject({ device_id: 'dev_4' })
    },
  )
})
