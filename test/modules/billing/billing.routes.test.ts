import { afterEach, describe, expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { addMember, createTenant } from '../../helpers/fixtures'
import { FAKE_SECRET_KEY, type FakeStripe } from '../../helpers/fake-stripe'
import { billingApp, stopFakes, clientRow, sendEvent } from './billing.setup'

afterEach(stopFakes)
const setup = () => billingApp()

/** Checks out once, so the client has a Stripe customer; returns its id. */
async function withCustomer(t: ReturnType<typeof testApp>, fake: FakeStripe, headers: Record<string, string>) {
  const res = await t.request('POST', '/v1/billing/checkout', { headers, body: {} })
  expect(res.status).toBe(200)
  return fake.calls('/v1/checkout/sessions').at(-1)!.params.customer!
}

describe('GET /v1/billing/plans', () => {
  test('is public and lists the catalog with limits', async () => {
    const t = testApp()
    const res = await t.request('GET', '/v1/billing/plans')
    expect(res.status).toBe(200)
    expect(res.body.map((p: { id: string }) => p.id)).toEqual(['free', 'b2c_monthly', 'b2c_yearly', 'b2b_monthly', 'b2b_yearly'])
    expect(res.body[1]).toEqual({
      id: 'b2c_monthly',
      name: 'Pro (monthly)',
      currency: 'usd',
      interval: 'month',
      price: 900,
      features: expect.any(Array),
      tier: 'pro',
      max_devices: 10,
      max_users: 50,
      rate_limit: 600,
    })
    expect(res.body.find((p: { id: string }) => p.id === 'b2b_yearly').rate_limit).toBe(6000)
  })
})

describe('POST /v1/billing/checkout', () => {
  test('defaults to b2c_monthly when sent no body', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const res = await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders })
    expect(res.status).toBe(200)
    expect(fake.calls('/v1/checkout/sessions')[0]!.params['metadata[plan_id]']).toBe('b2c_monthly')
  })

  test('an unknown plan, or the free one, is 400 invalid_parameter on "plan", and Stripe is not called', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    for (const plan of ['platinum', 'free']) {
      const res = await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan } })
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'plan' })
      expect(res.body.error.message).toContain('b2c_monthly')
    }
    expect(fake.requests).toHaveLength(0)
  })

  test('a configured Stripe price id is sent instead of inline price data', async () => {
    const { DEFAULT_PLANS } = await import('../../../src/modules/billing/billing.catalog')
    const plans = DEFAULT_PLANS.map((p) => (p.id === 'b2c_monthly' ? { ...p, stripePriceId: 'price_pro_m' } : p))
    const { t, fake } = billingApp({ plans })
    const ten = await createTenant(t)
    await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan: 'b2c_monthly' } })
    const params = fake.calls('/v1/checkout/sessions')[0]!.params
    expect(params['line_items[0][price]']).toBe('price_pro_m')
    expect(params['line_items[0][price_data][unit_amount]']).toBeUndefined()
  })

  test('validates its URLs (422)', async () => {
    const { t } = setup()
    const ten = await createTenant(t)
    const res = await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan: 'b2c_monthly', success_url: 'javascript:alert(1)' } })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].loc).toEqual(['body', 'success_url'])
  })

  test('a Stripe failure is a 502 that carries no secret', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    fake.failNext(500, 'api_key_expired')
    const res = await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: {} })
    expect(res.status).toBe(502)
    expect(res.body.error.code).toBe('provider_error')
    expect(res.text + t.logs.join('\n')).not.toContain(FAKE_SECRET_KEY)
  })
})

describe('roles and tenants', () => {
  test('checkout, portal and sync need owner or admin; reads need any member', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const member = await addMember(t, ten.clientId, 'member')
    const admin = await addMember(t, ten.clientId, 'admin')
    for (const path of ['/v1/billing/checkout', '/v1/billing/portal', '/v1/billing/sync']) {
      expect((await t.request('POST', path, { headers: member.headers, body: {} })).status).toBe(403)
      expect((await t.request('POST', path, { body: {} })).status).toBe(401)
      expect((await t.request('POST', path, { headers: ten.keyHeaders, body: {} })).status).toBe(401)
    }
    expect(fake.requests).toHaveLength(0)
    expect((await t.request('POST', '/v1/billing/checkout', { headers: admin.headers, body: {} })).status).toBe(200)
    for (const path of ['/v1/billing/subscription', '/v1/clients/me/billing', '/v1/clients/me/payments']) {
      expect((await t.request('GET', path, { headers: member.headers })).status).toBe(200)
      expect((await t.request('GET', path)).status).toBe(401)
    }
  })

  test("one client's subscription and payments are invisible to another", async () => {
    const { t, fake } = setup()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const customer = await withCustomer(t, fake, a.userHeaders)
    const sub = fake.setSubscription({ customer, metadata: { client_id: a.clientId, plan_id: 'b2c_monthly' } })
    await sendEvent(t, fake, { type: 'customer.subscription.created', object: sub })
    fake.addInvoice({ customer, subscription: sub.id })
    await t.request('POST', '/v1/billing/sync', { headers: a.userHeaders })
    expect((await t.request('GET', '/v1/billing/subscription', { headers: b.userHeaders })).body.status).toBe('none')
    expect((await t.request('GET', '/v1/clients/me/billing', { headers: b.userHeaders })).body.provider_customer_id).toBeNull()
    expect((await t.request('GET', '/v1/clients/me/payments', { headers: b.userHeaders })).body.total).toBe(0)
    expect((await t.request('GET', '/v1/clients/me/payments', { headers: a.userHeaders })).body.total).toBe(1)
    expect(clientRow(t, b.clientId).plan_type).toBe('free')
    // b's portal does not open a's customer
    expect((await t.request('POST', '/v1/billing/portal', { headers: b.userHeaders })).status).toBe(409)
  })
})

describe('POST /v1/billing/portal', () => {
  test('is 409 no_customer before the first checkout, then opens the customer portal', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const before = await t.request('POST', '/v1/billing/portal', { headers: ten.userHeaders })
    expect(before.status).toBe(409)
    expect(before.body.error.code).toBe('no_customer')
    const customer = await withCustomer(t, fake, ten.userHeaders)
    const res = await t.request('POST', '/v1/billing/portal', { headers: ten.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body.portal_url).toStartWith('https://billing.stripe.test/')
    expect(fake.calls('/v1/billing_portal/sessions')[0]!.params).toEqual({ customer, return_url: 'http://localhost:8080/settings/billing' })
  })
})

describe('POST /v1/billing/sync', () => {
  test('is 409 before checkout; then pulls the live subscription and the invoices, and applies them', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    expect((await t.request('POST', '/v1/billing/sync', { headers: ten.userHeaders })).body.error.code).toBe('no_customer')
    const customer = await withCustomer(t, fake, ten.userHeaders)
    // Webhooks were missed: Stripe has an old canceled subscription and a live one.
    fake.setSubscription({ customer, status: 'canceled', metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' }, created: 1_767_000_000 })
    const live = fake.setSubscription({ customer, metadata: { client_id: ten.clientId, plan_id: 'b2b_monthly' }, amount: 4900, created: 1_766_000_000 })
    fake.addInvoice({ customer, subscription: live.id, amount: 4900, created: 1_767_225_600 })
    fake.addInvoice({ customer, subscription: live.id, amount: 4900, status: 'open', attemptCount: 1, created: 1_767_312_000 })
    fake.addInvoice({ customer, status: 'draft', created: 1_767_400_000 })
    const res = await t.request('POST', '/v1/billing/sync', { headers: ten.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ synced: true, payments_recorded: 2, subscription: { status: 'active', plan_id: 'b2b_monthly', amount: 4900 } })
    expect(clientRow(t, ten.clientId)).toMatchObject({ plan_type: 'b2b_monthly', max_devices: 100 })
    expect(fake.calls('/v1/subscriptions')[0]!.params).toMatchObject({ customer, status: 'all' })
    const pays = await t.request('GET', '/v1/clients/me/payments', { headers: ten.userHeaders })
    expect(pays.body.items.map((p: { status: string }) => p.status)).toEqual(['failed', 'paid'])
  })

  test('with no subscription left at Stripe, the client returns to free', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const customer = await withCustomer(t, fake, ten.userHeaders)
    const sub = fake.setSubscription({ customer, metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' } })
    await sendEvent(t, fake, { type: 'customer.subscription.created', object: sub })
    expect(clientRow(t, ten.clientId).plan_type).toBe('b2c_monthly')
    fake.removeSubscription(sub.id)
    t.clock.advance(1000)
    const res = await t.request('POST', '/v1/billing/sync', { headers: ten.userHeaders })
    expect(res.body.subscription.status).toBe('none')
    expect(clientRow(t, ten.clientId)).toMatchObject({ plan_type: 'free', subscription_status: 'none', max_devices: 1 })
  })
})

describe('without STRIPE_SECRET_KEY', () => {
  test('provider flows answer 503 naming the variable; plans, subscription, billing and payments still answer', async () => {
    const t = testApp()
    expect(t.modules.billing.stripe).toBeNull()
    const ten = await createTenant(t)
    for (const path of ['/v1/billing/checkout', '/v1/billing/portal', '/v1/billing/sync']) {
      const res = await t.request('POST', path, { headers: ten.userHeaders, body: {} })
      expect(res.status).toBe(503)
      expect(res.body.error.code).toBe('billing_not_configured')
      expect(res.body.error.message).toContain('STRIPE_SECRET_KEY')
    }
    const hook = await t.request('POST', '/v1/billing/webhook', { raw: '{}', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' } })
    expect(hook.status).toBe(503)
    expect((await t.request('GET', '/v1/billing/plans')).status).toBe(200)
    expect((await t.request('GET', '/v1/billing/subscription', { headers: ten.userHeaders })).body).toEqual({
      status: 'none',
      plan_id: null,
      amount: null,
      currency: null,
      interval: null,
      current_period_start: null,
      current_period_end: null,
      cancel_at_period_end: false,
    })
    expect((await t.request('GET', '/v1/clients/me/billing', { headers: ten.userHeaders })).body).toMatchObject({
      provider_customer_id: null,
      subscription_status: 'none',
      cancel_at_period_end: false,
      max_devices: 1,
      plan_type: 'free',
    })
    expect((await t.request('GET', '/v1/clients/me/payments', { headers: ten.userHeaders })).body).toEqual({ items: [], total: 0, limit: 24, offset: 0 })
  })
})
