import { afterEach, describe, expect, test } from 'bun:test'
import { applySubscription } from '../../../src/modules/billing/billing.plan-writer'
import { storeFindings } from '../../../src/modules/recommendations/recommendations.service'
import { insertDevice } from '../../helpers/devices'
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

const endpointOf = (t: WebhookApp, id: string) =>
  t.db.sqlite
    .query<{ enabled: number; disabled_reason: string | null }, [string]>('SELECT enabled, disabled_reason FROM webhook_endpoints WHERE id = ?')
    .get(id)!
const countByStatus = (t: WebhookApp) =>
  Object.fromEntries(
    t.db.sqlite
      .query<{ status: string; n: number }, []>('SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status')
      .all()
      .map((r) => [r.status, r.n]),
  )

describe('disabling an endpoint', () => {
  test('410 Gone disables it at once; its owners hear endpoint.disabled; nothing more is written for it', async () => {
    const t = (app = webhookApp())
    const gone = receiver(() => new Response('', { status: 410 }))
    const watcher = receiver()
    const { tenant, endpoint } = await tenantWithEndpoint(t, gone.url)
    const other = await t.request('POST', '/v1/webhooks/endpoints', {
      headers: tenant.userHeaders,
      body: { url: watcher.url, event_types: ['endpoint.disabled'] },
    })
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    await t.settle()
    expect(endpointOf(t, endpoint.id)).toEqual({ enabled: 0, disabled_reason: 'gone' })
    expect(gone.requests).toHaveLength(1)
    const notice = verify(other.body.secret, watcher.requests[0]!)
    expect(notice.type).toBe('endpoint.disabled')
    expect(notice.data).toMatchObject({ endpoint: { id: endpoint.id, url: gone.url }, reason: 'gone' })
    expect(String(notice.data.message)).toContain('410 Gone')
    expect(t.logs.some((l) => l.includes('webhook endpoint disabled'))).toBe(true)
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_2' })
    await t.settle()
    expect(countByStatus(t)).toEqual({ failed: 1, succeeded: 1 })
    const test = await t.request('POST', `/v1/webhooks/endpoints/${endpoint.id}/test`, { headers: tenant.userHeaders })
    expect(test.status).toBe(409)
  })

  test('failing for five days disables it; enabling it again resumes its held deliveries', async () => {
    const t = (app = webhookApp())
    let down = true
    const r = receiver(() => new Response('', { status: down ? 503 : 200 }))
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url)
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    await t.settle()
    await t.pass(4 * 86400_000)
    expect(endpointOf(t, endpoint.id).enabled).toBe(1) // four days: still trying
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_2' })
    await t.settle()
    await t.pass(86400_000)
    expect(endpointOf(t, endpoint.id)).toEqual({ enabled: 0, disabled_reason: 'failing' })
    expect(countByStatus(t)).toEqual({ held: 2 })
    down = false
    const token = await t.modules.users.tokens.sign({ userId: tenant.userId, clientId: tenant.clientId, role: 'user' })
    const enabled = await t.request('PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, {
      headers: { authorization: `Bearer ${token}` },
      body: { enabled: true },
    })
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null })
    await t.settle()
    expect(countByStatus(t)).toEqual({ succeeded: 2 })
  })

  test('a success clears the failing mark even when a failure of another delivery was recorded while it was in flight', async () => {
    const t = (app = webhookApp())
    let release = () => {}
    const held = new Promise<void>((r) => (release = r))
    // the first delivery is answered 200 late; the second 503 at once, while the first is in flight
    const r = receiver(async (_q, n) => {
      if (n > 1) return new Response('', { status: 503 })
      await held
      return new Response('', { status: 200 })
    })
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url)
    const failingSince = () =>
      t.db.sqlite.query<{ f: number | null }, [string]>('SELECT failing_since AS f FROM webhook_endpoints WHERE id = ?').get(endpoint.id)!.f
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    while (r.requests.length < 1) await Bun.sleep(5)
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_2' })
    while (failingSince() === null) await Bun.sleep(5)
    release()
    await t.settle()
    // a 2xx came after the failure: the endpoint is not failing, and five days on are not counted from it
    expect(failingSince()).toBeNull()
  })

  test('paused by hand: events during the pause are not queued for it', async () => {
    const t = (app = webhookApp())
    const r = receiver()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url)
    const paused = await t.request('PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { headers: tenant.userHeaders, body: { enabled: false } })
    expect(paused.body).toMatchObject({ enabled: false, disabled_reason: 'manual' })
    t.ctx.events.publish(tenant.clientId, 'device.registered', { device_id: 'dev_1' })
    await t.settle()
    // a disabled endpoint subscribes to nothing: the event is not queued for it
    expect(r.requests).toHaveLength(0)
    expect(countByStatus(t)).toEqual({})
  })
})

describe('events born in other modules', () => {
  test('recommendation.created, from a collector and from the engine', async () => {
    const t = (app = webhookApp())
    const r = receiver()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url, ['recommendation.created'])
    const device = insertDevice(t, tenant.clientId)
    const res = await t.request('POST', '/v1/recommendations', {
      headers: tenant.keyHeaders,
      body: { recommendation: 'Update the kernel', category: 'security' },
    })
    expect(res.status).toBe(201)
    storeFindings(t.modules.recommendations, tenant.clientId, [
      {
        deviceId: device,
        recommendation: 'Disk / fills in 3 days',
        category: 'disk',
        severity: 'warning',
        source: 'rules',
        evidence: null,
        dedupeKey: 'disk:/',
      },
    ])
    await t.settle()
    const got = r.requests.map((q) => verify(endpoint.secret, q))
    expect(got.map((p) => [p.type, (p.data.recommendation as { recommendation: string }).recommendation])).toEqual([
      ['recommendation.created', 'Update the kernel'],
      ['recommendation.created', 'Disk / fills in 3 days'],
    ])
    expect(got[0]!.data.recommendation).toEqual(res.body)
  })

  test('subscription.updated when billing applies a subscription', async () => {
    const t = (app = webhookApp())
    const r = receiver()
    const { tenant, endpoint } = await tenantWithEndpoint(t, r.url, ['subscription.updated'])
    const snap = {
      id: 'sub_1',
      customerId: 'cus_1',
      status: 'active',
      clientId: tenant.clientId,
      planId: 'b2c_monthly',
      priceId: null,
      lookupKey: null,
      amount: 900,
      currency: 'usd',
      interval: 'month',
      periodStart: t.clock.now(),
      periodEnd: t.clock.now() + 30 * 86400_000,
      cancelAtPeriodEnd: false,
    }
    expect(await applySubscription(t.modules.billing, tenant.clientId, snap, { observedAt: t.clock.now() }, t.clock.now())).toBe('applied')
    await t.settle()
    const p = verify(endpoint.secret, r.requests[0]!)
    expect(p.type).toBe('subscription.updated')
    expect(p.data).toMatchObject({ plan_type: 'b2c_monthly', subscription: { status: 'active', plan_id: 'b2c_monthly', amount: 900 } })
  })
})
