import { afterEach, describe, expect, test } from 'bun:test'
import { createTenant } from '../../helpers/fixtures'
import { FAKE_SECRET_KEY, FAKE_WEBHOOK_SECRET } from '../../helpers/fake-stripe'
import { billingApp, stopFakes, checkoutSession, clientRow, nowS, sendEvent } from './billing.setup'

afterEach(stopFakes)
const setup = () => billingApp()

describe('checkout → webhook → limits', () => {
  test('a paid subscription raises the limits at once; replays and older events change nothing; its end returns the client to free', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const limitOf = async () => (await t.request('GET', '/v1/billing/plans', { headers: ten.keyHeaders })).headers.get('x-ratelimit-limit')
    expect(await limitOf()).toBe('60')

    // Checkout: a customer is created for the client, then a subscription-mode session.
    const co = await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan: 'b2c_monthly' } })
    expect(co.status).toBe(200)
    expect(co.body.checkout_url).toStartWith('https://checkout.stripe.test/')
    expect(co.body.session_id).toStartWith('cs_test')
    const [customerReq] = fake.calls('/v1/customers', 'POST')
    expect(customerReq!.params['metadata[client_id]']).toBe(ten.clientId)
    const [sessionReq] = fake.calls('/v1/checkout/sessions')
    expect(sessionReq!.params).toMatchObject({
      mode: 'subscription',
      client_reference_id: ten.clientId,
      'metadata[client_id]': ten.clientId,
      'subscription_data[metadata][client_id]': ten.clientId,
      'subscription_data[metadata][plan_id]': 'b2c_monthly',
      'line_items[0][price_data][unit_amount]': '900',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][recurring][interval]': 'month',
      success_url: 'http://localhost:8080/dashboard?checkout=success&session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:8080/pricing?checkout=canceled',
    })
    const customer = sessionReq!.params.customer!
    expect(customer).toStartWith('cus_')

    // The customer is created once and reused.
    const again = await t.request('POST', '/v1/billing/checkout', {
      headers: ten.userHeaders,
      body: { plan: 'b2c_yearly', success_url: 'https://app.example.test/ok' },
    })
    expect(again.status).toBe(200)
    expect(fake.calls('/v1/customers', 'POST')).toHaveLength(1)
    expect(fake.calls('/v1/checkout/sessions')[1]!.params).toMatchObject({
      customer,
      success_url: 'https://app.example.test/ok',
      'line_items[0][price_data][recurring][interval]': 'year',
    })

    // Stripe completes the checkout: the subscription is re-read and applied.
    const sub = fake.setSubscription({
      customer,
      metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' },
      periodStart: 1_767_225_600,
      periodEnd: 1_769_904_000,
    })
    const completed = await sendEvent(t, fake, { type: 'checkout.session.completed', object: checkoutSession(ten.clientId, customer, sub.id) })
    expect(completed.status).toBe(200)
    expect(completed.body).toEqual({ received: true, outcome: 'applied' })
    expect(clientRow(t, ten.clientId)).toEqual({ plan_type: 'b2c_monthly', subscription_status: 'active', max_devices: 10, max_users: 50 })
    expect(await limitOf()).toBe('600')
    const s1 = await t.request('GET', '/v1/billing/subscription', { headers: ten.userHeaders })
    expect(s1.body).toEqual({
      status: 'active',
      plan_id: 'b2c_monthly',
      amount: 900,
      currency: 'usd',
      interval: 'month',
      current_period_start: '2026-01-01T00:00:00.000Z',
      current_period_end: '2026-02-01T00:00:00.000Z',
      cancel_at_period_end: false,
    })
    const billing = await t.request('GET', '/v1/clients/me/billing', { headers: ten.userHeaders })
    // While it is live, a second checkout would bill twice: plan changes go through the portal.
    const second = await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan: 'b2b_monthly' } })
    expect(second.status).toBe(409)
    expect(second.body.error).toMatchObject({ code: 'conflict' })
    expect(second.body.error.message).toContain('portal')
    expect(billing.body).toMatchObject({
      provider_customer_id: customer,
      provider_subscription_id: sub.id,
      subscription_status: 'active',
      subscription_plan_id: 'b2c_monthly',
      max_devices: 10,
      plan_type: 'b2c_monthly',
    })

    // A replay of the same event is acknowledged and changes nothing (no second Stripe read).
    const retrievesBefore = fake.calls(`/v1/subscriptions/${sub.id}`).length
    const replay = await sendEvent(t, fake, {
      id: completed.event.id,
      type: 'checkout.session.completed',
      object: checkoutSession(ten.clientId, customer, sub.id),
    })
    expect(replay.body).toEqual({ received: true, outcome: 'duplicate' })
    expect(fake.calls(`/v1/subscriptions/${sub.id}`)).toHaveLength(retrievesBefore)

    // The client asks to cancel at period end: a newer update event.
    t.clock.advance(60_000)
    fake.setSubscription({ id: sub.id, customer, metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' }, cancelAtPeriodEnd: true })
    const updated = await sendEvent(t, fake, { type: 'customer.subscription.updated', object: fake.subscription(sub.id) })
    expect(updated.body.outcome).toBe('applied')
    expect((await t.request('GET', '/v1/billing/subscription', { headers: ten.userHeaders })).body).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
    })

    // An older event arriving late is ignored without even asking Stripe.
    const retrieves = fake.calls(`/v1/subscriptions/${sub.id}`).length
    const older = await sendEvent(t, fake, {
      type: 'customer.subscription.updated',
      created: nowS(t) - 30,
      object: { ...fake.subscription(sub.id), status: 'unpaid', cancel_at_period_end: false },
    })
    expect(older.status).toBe(200)
    expect(older.body.outcome).toBe('stale')
    expect(fake.calls(`/v1/subscriptions/${sub.id}`)).toHaveLength(retrieves)
    expect(clientRow(t, ten.clientId).subscription_status).toBe('active')
    expect((await t.request('GET', '/v1/billing/subscription', { headers: ten.userHeaders })).body.cancel_at_period_end).toBe(true)

    // The subscription ends: back to the free limits, and the rate limit follows at once.
    t.clock.advance(60_000)
    fake.setSubscription({ id: sub.id, customer, status: 'canceled', metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' } })
    const deleted = await sendEvent(t, fake, { type: 'customer.subscription.deleted', object: fake.subscription(sub.id) })
    expect(deleted.body.outcome).toBe('applied')
    expect(clientRow(t, ten.clientId)).toEqual({ plan_type: 'free', subscription_status: 'canceled', max_devices: 1, max_users: 50 })
    expect(await limitOf()).toBe('60')
    expect((await t.request('GET', '/v1/billing/subscription', { headers: ten.userHeaders })).body).toMatchObject({
      status: 'canceled',
      plan_id: 'b2c_monthly',
    })

    // Secrets never reach a response or a log line.
    const everything = [co.text, completed.text, billing.text, ...t.logs].join('\n')
    expect(everything).not.toContain(FAKE_SECRET_KEY)
    expect(everything).not.toContain(FAKE_WEBHOOK_SECRET)
  })

  test('a newer event with a stale payload applies what Stripe says now, not the payload', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const customer = 'cus_direct'
    const sub = fake.setSubscription({ customer, metadata: { client_id: ten.clientId, plan_id: 'b2b_monthly' } })
    const res = await sendEvent(t, fake, { type: 'customer.subscription.created', object: { ...sub, status: 'incomplete' } })
    expect(res.body.outcome).toBe('applied')
    expect(clientRow(t, ten.clientId)).toEqual({ plan_type: 'b2b_monthly', subscription_status: 'active', max_devices: 100, max_users: 500 })
    // The customer seen on the subscription is remembered, for the portal.
    expect((await t.request('GET', '/v1/clients/me/billing', { headers: ten.userHeaders })).body.provider_customer_id).toBe(customer)
  })

  test('past_due keeps the paid limits (grace); unpaid drops to free', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const meta = { client_id: ten.clientId, plan_id: 'b2c_monthly' }
    const sub = fake.setSubscription({ customer: 'cus_x', metadata: meta, status: 'past_due' })
    await sendEvent(t, fake, { type: 'customer.subscription.updated', object: sub })
    expect(clientRow(t, ten.clientId)).toMatchObject({ plan_type: 'b2c_monthly', subscription_status: 'past_due', max_devices: 10 })
    t.clock.advance(1000)
    fake.setSubscription({ id: sub.id, customer: 'cus_x', metadata: meta, status: 'unpaid' })
    await sendEvent(t, fake, { type: 'customer.subscription.updated', object: fake.subscription(sub.id) })
    expect(clientRow(t, ten.clientId)).toMatchObject({ plan_type: 'free', subscription_status: 'unpaid', max_devices: 1 })
  })

  test('the end of an old subscription does not cancel the newer live one', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const meta = { client_id: ten.clientId, plan_id: 'b2c_monthly' }
    const oldSub = fake.setSubscription({ customer: 'cus_y', metadata: meta })
    await sendEvent(t, fake, { type: 'customer.subscription.created', object: oldSub })
    t.clock.advance(1000)
    const newSub = fake.setSubscription({ customer: 'cus_y', metadata: { ...meta, plan_id: 'b2b_yearly' }, interval: 'year', amount: 49000 })
    await sendEvent(t, fake, { type: 'customer.subscription.created', object: newSub })
    t.clock.advance(1000)
    fake.setSubscription({ id: oldSub.id, customer: 'cus_y', metadata: meta, status: 'canceled' })
    const res = await sendEvent(t, fake, { type: 'customer.subscription.deleted', object: fake.subscription(oldSub.id) })
    expect(res.body.outcome).toBe('stale')
    expect(clientRow(t, ten.clientId)).toMatchObject({ plan_type: 'b2b_yearly', subscription_status: 'active', max_devices: 100 })
  })

  test('a subscription Stripe no longer knows is treated as canceled', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const sub = fake.setSubscription({ customer: 'cus_z', metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' } })
    await sendEvent(t, fake, { type: 'customer.subscription.created', object: sub })
    fake.removeSubscription(sub.id)
    t.clock.advance(1000)
    const res = await sendEvent(t, fake, { type: 'customer.subscription.deleted', object: sub })
    expect(res.body.outcome).toBe('applied')
    expect(clientRow(t, ten.clientId)).toMatchObject({ plan_type: 'free', subscription_status: 'canceled' })
  })

  test('events for unknown clients and kinds we do not handle are acknowledged and ignored', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const other = await sendEvent(t, fake, { type: 'customer.created', object: { id: 'cus_q', object: 'customer' } })
    expect(other.body).toEqual({ received: true, outcome: 'ignored' })
    const unknown = fake.setSubscription({ customer: 'cus_unknown', metadata: { client_id: 'cli_nobody' } })
    const res = await sendEvent(t, fake, { type: 'customer.subscription.updated', object: unknown })
    expect(res.body.outcome).toBe('ignored')
    expect(clientRow(t, ten.clientId).plan_type).toBe('free')
  })

  test('a Stripe failure while applying answers 502, records nothing, and a redelivery then succeeds', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const sub = fake.setSubscription({ customer: 'cus_f', metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' } })
    fake.failNext(500)
    const ev = { id: 'evt_retry_me', type: 'customer.subscription.created', object: sub }
    const first = await sendEvent(t, fake, ev)
    expect(first.status).toBe(502)
    expect(first.body.error.code).toBe('provider_error')
    expect(clientRow(t, ten.clientId).plan_type).toBe('free')
    const second = await sendEvent(t, fake, ev)
    expect(second.body.outcome).toBe('applied')
    expect(clientRow(t, ten.clientId).plan_type).toBe('b2c_monthly')
  })
})
