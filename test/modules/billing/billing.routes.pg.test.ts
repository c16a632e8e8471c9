import { afterEach, describe, expect, test } from 'bun:test'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { FAKE_SECRET_KEY, FAKE_WEBHOOK_SECRET, fakeStripe } from '../../helpers/fake-stripe'
import { pgTenant } from '../../helpers/fleet.pg'
import { checkoutSession, sendEvent } from './billing.setup'

/** Checkout and the Stripe webhook against the local fake Stripe, on a hub whose billing store is on PostgreSQL. */
const pgApp = pgTestAppLifecycle()
const fakes: { stop(): void }[] = []
afterEach(() => {
  while (fakes.length) fakes.pop()!.stop()
})

describe('billing on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(
    `checkout makes the customer once; the completed checkout applies the plan; a replay, an invoice and its replay are recorded once ${pgApp.skipReason}`,
    async () => {
      const fake = fakeStripe()
      fakes.push(fake)
      const t = await pgApp.make({
        stripe: fake.client(),
        config: { stripe: { secretKey: FAKE_SECRET_KEY, webhookSecret: FAKE_WEBHOOK_SECRET, apiBase: fake.apiBase } },
      })
      const ten = await pgTenant(t)
      const co = await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan: 'b2c_monthly' } })
      expect(co.status).toBe(200)
      expect((await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan: 'b2c_yearly' } })).status).toBe(200)
      expect(fake.calls('/v1/customers', 'POST')).toHaveLength(1)
      const [acc] = await t.sql`SELECT provider_customer_id FROM billing_accounts WHERE client_id = ${ten.clientId}`
      const customer = acc.provider_customer_id as string
      expect(customer).toBe(fake.calls('/v1/checkout/sessions')[0]!.params.customer!)

      const sub = fake.setSubscription({
        customer,
        metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' },
        periodStart: 1_767_225_600,
        periodEnd: 1_769_904_000,
      })
      const done = await sendEvent(t, fake, { type: 'checkout.session.completed', object: checkoutSession(ten.clientId, customer, sub.id) })
      expect(done.body).toEqual({ received: true, outcome: 'applied' })
      const replay = await sendEvent(t, fake, {
        id: done.event.id,
        type: 'checkout.session.completed',
        object: checkoutSession(ten.clientId, customer, sub.id),
      })
      expect(replay.body).toEqual({ received: true, outcome: 'duplicate' })
      const [row] = await t.sql`SELECT subscription_status, plan_id, cancel_at_period_end FROM billing_accounts WHERE client_id = ${ten.clientId}`
      expect(row).toEqual({ subscription_status: 'active', plan_id: 'b2c_monthly', cancel_at_period_end: false })
      expect((await t.request('GET', '/v1/billing/subscription', { headers: ten.userHeaders })).body).toMatchObject({
        status: 'active',
        plan_id: 'b2c_monthly',
        current_period_start: '2026-01-01T00:00:00.000Z',
      })
      const billing = await t.request('GET', '/v1/clients/me/billing', { headers: ten.userHeaders })
      expect(billing.body).toMatchObject({ provider_customer_id: customer, subscription_status: 'active', plan_type: 'b2c_monthly', max_devices: 10 })
      expect((await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan: 'b2b_monthly' } })).status).toBe(409)

      const inv = fake.addInvoice({ customer, subscription: sub.id, created: 1_767_225_600 })
      const paid = await sendEvent(t, fake, { type: 'invoice.paid', object: inv })
      expect(paid.body.outcome).toBe('applied')
      expect((await sendEvent(t, fake, { id: paid.event.id, type: 'invoice.paid', object: inv })).body.outcome).toBe('duplicate')
      const list = await t.request('GET', '/v1/clients/me/payments', { headers: ten.userHeaders })
      expect(list.body).toMatchObject({ total: 1, items: [{ invoice_id: inv.id, status: 'paid', amount: 900, created_at: '2026-01-01T00:00:00.000Z' }] })
      const [events] = await t.sql`SELECT count(*)::int AS n FROM billing_events`
      expect(events.n).toBe(2)
      const other = await pgTenant(t)
      expect((await t.request('GET', '/v1/clients/me/payments', { headers: other.userHeaders })).body.total).toBe(0)
    },
  )
})
