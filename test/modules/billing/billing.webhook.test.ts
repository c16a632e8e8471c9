import { afterEach, describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'
import { signedEvent } from '../../helpers/fake-stripe'
import { billingApp, stopFakes, clientRow, nowS, postEvent, sendEvent } from './billing.setup'

afterEach(stopFakes)
const setup = (opts: { webhookSecret?: string | null } = {}) => billingApp(opts)

const eventCount = (t: ReturnType<typeof testApp>) => t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM billing_events').get()!.n

describe('POST /v1/billing/webhook signature', () => {
  async function refused(send: (ctx: ReturnType<typeof setup> & { sub: unknown }) => Promise<{ status: number; body: any }>) {
    const b = setup()
    const ten = await createTenant(b.t)
    const sub = b.fake.setSubscription({ customer: 'cus_s', metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' } })
    const res = await send({ ...b, sub })
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({ code: 'invalid_signature', param: 'stripe-signature' })
    // Nothing applied, nothing recorded, Stripe never asked.
    expect(clientRow(b.t, ten.clientId).plan_type).toBe('free')
    expect(eventCount(b.t)).toBe(0)
    expect(b.fake.requests).toHaveLength(0)
    return res
  }

  test('a forged event (signed with another secret) is refused', async () => {
    await refused(({ t, fake, sub }) => sendEvent(t, fake, { type: 'customer.subscription.created', object: sub, secret: 'whsec_attacker' }))
  })

  test('a tampered body is refused', async () => {
    await refused(async ({ t, fake, sub }) => {
      const ok = await sendEvent(t, fake, { type: 'customer.created', object: {} }) // a valid one, to copy its signature
      t.db.sqlite.run('DELETE FROM billing_events')
      const payload = ok.event.payload.replace('customer.created', 'customer.subscription.created').replace('"object":{}', `"object":${JSON.stringify(sub)}`)
      fake.requests.length = 0
      return postEvent(t, payload, ok.event.signature)
    })
  })

  test('a stale event (signed more than 300 s ago) is refused', async () => {
    const res = await refused(({ t, fake, sub }) => sendEvent(t, fake, { type: 'customer.subscription.created', object: sub, signedAt: nowS(t) - 301 }))
    expect(res.body.error.message).toContain('tolerance')
  })

  test('an event signed 300 s ago is still accepted', async () => {
    const { t, fake } = setup()
    const res = await sendEvent(t, fake, { type: 'customer.created', object: {}, signedAt: nowS(t) - 300 })
    expect(res.status).toBe(200)
  })

  test('an unsigned event is refused', async () => {
    await refused(async ({ t, fake, sub }) => {
      const ev = await sendEvent(t, fake, { type: 'customer.created', object: {} })
      t.db.sqlite.run('DELETE FROM billing_events')
      return postEvent(t, ev.event.payload.replace('customer.created', 'customer.subscription.created').replace('"object":{}', `"object":${JSON.stringify(sub)}`))
    })
  })

  test('without STRIPE_WEBHOOK_SECRET the webhook answers 503 and names the variable', async () => {
    const { t, fake } = setup({ webhookSecret: null })
    const res = await sendEvent(t, fake, { type: 'customer.created', object: {} })
    expect(res.status).toBe(503)
    expect(res.body.error.code).toBe('billing_not_configured')
    expect(res.body.error.message).toContain('STRIPE_WEBHOOK_SECRET')
  })

  test('needs no credential, and a stray one does not get in the way', async () => {
    const { t, fake } = setup()
    const ev = await signedEvent(fake.client(), { type: 'customer.created', object: {}, signedAt: nowS(t) })
    const res = await t.request('POST', '/v1/billing/webhook', {
      raw: ev.payload,
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': ev.signature, authorization: 'Bearer not-a-token' },
    })
    expect(res.status).toBe(200)
    expect(eventCount(t)).toBe(1)
  })
})
