import { afterEach, describe, expect, test } from 'bun:test'
import type { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'
import { FAKE_WEBHOOK_SECRET, signedEvent } from '../../helpers/fake-stripe'
import { billingApp, checkoutSession, stopFakes, clientRow, nowS, postEvent, sendEvent } from './billing.setup'

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
      return postEvent(
        t,
        ev.event.payload.replace('customer.created', 'customer.subscription.created').replace('"object":{}', `"object":${JSON.stringify(sub)}`),
      )
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

describe('POST /v1/billing/webhook with a signed event of an odd shape', () => {
  /** Signs any payload text the way Stripe does, so only the shape is under test. */
  async function postSigned(b: ReturnType<typeof setup>, payload: string) {
    b.t.clock.advance(60_000) // a fresh anonymous rate-limit allowance for each of the many events sent here
    const signature = await b.fake.client().webhooks.generateTestHeaderStringAsync({ payload, secret: FAKE_WEBHOOK_SECRET, timestamp: nowS(b.t) })
    return postEvent(b.t, payload, signature)
  }
  const envelope = (b: ReturnType<typeof setup>, over: Record<string, unknown>) => ({
    id: 'evt_odd',
    object: 'event',
    created: nowS(b.t),
    type: 'customer.created',
    data: { object: {} },
    ...over,
  })

  test('a missing or malformed envelope is 400 bad_request naming the field, and nothing is recorded', async () => {
    const b = setup()
    const cases: [unknown, string][] = [
      [{ type: undefined }, 'type'],
      [{ type: 42 }, 'type'],
      [{ type: '' }, 'type'],
      [{ id: undefined }, 'id'],
      [{ id: { x: 1 } }, 'id'],
      [{ created: 'yesterday' }, 'created'],
      [{ data: undefined }, 'data'],
      [{ data: { object: null } }, 'data.object'],
      [{ data: { object: 'cus_1' } }, 'data.object'],
      [{ data: { object: [1, 2] } }, 'data.object'],
    ]
    for (const [over, param] of cases) {
      const res = await postSigned(b, JSON.stringify(envelope(b, over as Record<string, unknown>)))
      expect({ over, status: res.status, param: res.body.error?.param }).toEqual({ over, status: 400, param })
      expect(res.body.error.code).toBe('bad_request')
    }
    for (const payload of ['null', '[]', '"evt"', '7', '{}']) {
      const res = await postSigned(b, payload)
      expect({ payload, status: res.status }).toEqual({ payload, status: 400 })
    }
    expect(eventCount(b.t)).toBe(0)
  })

  test('an unknown type with any object is acknowledged and ignored', async () => {
    const b = setup()
    const res = await postSigned(b, JSON.stringify(envelope(b, { type: 'made.up', data: { object: { anything: [1, { x: null }] } } })))
    expect(res.status).toBe(200)
    expect(res.body.outcome).toBe('ignored')
  })

  test('every field of every handled event, set to any JSON type or removed, answers 2xx or 4xx, never 5xx', async () => {
    const b = setup()
    const ten = await createTenant(b.t)
    const sub = b.fake.setSubscription({ customer: 'cus_m', metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' } })
    const inv = b.fake.addInvoice({ customer: 'cus_m', subscription: sub.id })
    const objects: [string, Record<string, unknown>][] = [
      ['checkout.session.completed', checkoutSession(ten.clientId, 'cus_m', sub.id)],
      ['customer.subscription.updated', sub as unknown as Record<string, unknown>],
      ['invoice.paid', inv as unknown as Record<string, unknown>],
    ]
    const odd: unknown[] = [undefined, null, 'x', '', 7, -1.5, true, [], [1], {}, { id: 5 }]
    let n = 0
    for (const [type, object] of objects) {
      for (const key of Object.keys(object)) {
        for (const value of odd) {
          const mutated = { ...object, [key]: value }
          const res = await postSigned(b, JSON.stringify(envelope(b, { id: `evt_m${n++}`, type, data: { object: mutated } })))
          expect({ type, key, value, status: res.status < 500 && res.status !== 429 ? 'ok' : res.status }).toEqual({ type, key, value, status: 'ok' })
        }
      }
    }
    // and the untouched events still apply
    expect((await postSigned(b, JSON.stringify(envelope(b, { id: 'evt_ok', type: 'invoice.paid', data: { object: inv } })))).status).toBe(200)
  }, 30_000)
})
