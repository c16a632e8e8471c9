import { afterEach, describe, expect, test } from 'bun:test'
import { createTenant } from '../../helpers/fixtures'
import { billingApp, stopFakes, sendEvent } from './billing.setup'

afterEach(stopFakes)

/** A client with a Stripe customer and a subscription, ready to receive invoices. */
async function setup() {
  const { t, fake } = billingApp()
  const ten = await createTenant(t)
  await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: {} })
  const customer = fake.calls('/v1/checkout/sessions')[0]!.params.customer!
  const sub = fake.setSubscription({ customer, metadata: { client_id: ten.clientId, plan_id: 'b2c_monthly' } })
  return { t, fake, ten, customer, sub }
}

const DAY = 86_400

describe('payments from invoices', () => {
  test('invoice.paid and invoice.payment_failed record payments, newest first', async () => {
    const { t, fake, ten, customer, sub } = await setup()
    const base = 1_767_225_600 // 2026-01-01
    const paid = fake.addInvoice({ customer, subscription: sub.id, created: base, periodStart: base, periodEnd: base + 31 * DAY })
    const failed = fake.addInvoice({ customer, subscription: sub.id, created: base + 31 * DAY, status: 'open' })
    expect((await sendEvent(t, fake, { type: 'invoice.paid', object: paid })).body.outcome).toBe('applied')
    expect((await sendEvent(t, fake, { type: 'invoice.payment_failed', object: failed })).body.outcome).toBe('applied')
    const res = await t.request('GET', '/v1/clients/me/payments', { headers: ten.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ total: 2, limit: 24, offset: 0 })
    expect(res.body.items[0]).toMatchObject({ invoice_id: failed.id, status: 'failed', amount: 900, created_at: '2026-02-01T00:00:00.000Z', paid_at: null })
    expect(res.body.items[1]).toEqual({
      id: expect.stringMatching(/^pay_/),
      invoice_id: paid.id,
      subscription_id: sub.id,
      amount: 900,
      currency: 'usd',
      status: 'paid',
      description: '1 × Vigil Pro (monthly)',
      period_start: '2026-01-01T00:00:00.000Z',
      period_end: '2026-02-01T00:00:00.000Z',
      invoice_url: `https://invoice.stripe.test/i/${paid.id}`,
      invoice_pdf: `https://invoice.stripe.test/i/${paid.id}/pdf`,
      paid_at: '2026-01-01T00:00:00.000Z',
      created_at: '2026-01-01T00:00:00.000Z',
    })
  })

  test('a retried invoice that is finally paid becomes paid; a late failure never hides a payment', async () => {
    const { t, fake, ten, customer, sub } = await setup()
    const inv = fake.addInvoice({ customer, subscription: sub.id, status: 'open' })
    await sendEvent(t, fake, { type: 'invoice.payment_failed', object: inv })
    await sendEvent(t, fake, { type: 'invoice.paid', object: { ...inv, status: 'paid', amount_paid: 900 } })
    await sendEvent(t, fake, { type: 'invoice.payment_failed', object: inv }) // out of order
    const res = await t.request('GET', '/v1/clients/me/payments', { headers: ten.userHeaders })
    expect(res.body.total).toBe(1)
    expect(res.body.items[0]).toMatchObject({ status: 'paid', amount: 900 })
  })

  test('a replayed invoice event is acknowledged once', async () => {
    const { t, fake, customer, sub } = await setup()
    const inv = fake.addInvoice({ customer, subscription: sub.id })
    const first = await sendEvent(t, fake, { type: 'invoice.paid', object: inv })
    const again = await sendEvent(t, fake, { id: first.event.id, type: 'invoice.paid', object: inv })
    expect(again.status).toBe(200)
    expect(again.body.outcome).toBe('duplicate')
  })

  test('an invoice of an unknown customer is ignored', async () => {
    const { t, fake } = await setup()
    const inv = fake.addInvoice({ customer: 'cus_stranger' })
    expect((await sendEvent(t, fake, { type: 'invoice.paid', object: inv })).body.outcome).toBe('ignored')
    expect(t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM billing_payments').get()!.n).toBe(0)
  })
})

describe('GET /v1/clients/me/payments', () => {
  async function withMonths(n: number) {
    const s = await setup()
    for (let i = 0; i < n; i++) {
      const created = 1_767_225_600 + i * 30 * DAY
      await sendEvent(s.t, s.fake, { type: 'invoice.paid', object: s.fake.addInvoice({ customer: s.customer, subscription: s.sub.id, created }) })
    }
    return s
  }

  test('pages with limit and offset', async () => {
    const { t, ten } = await withMonths(5)
    const page = await t.request('GET', '/v1/clients/me/payments?limit=2&offset=1', { headers: ten.userHeaders })
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 1 })
    expect(page.body.items.map((p: { created_at: string }) => p.created_at)).toEqual(['2026-04-01T00:00:00.000Z', '2026-03-02T00:00:00.000Z'])
    const past = await t.request('GET', '/v1/clients/me/payments?offset=10', { headers: ten.userHeaders })
    expect(past.body.items).toEqual([])
  })

  test('filters by start_date and end_date (inclusive)', async () => {
    const { t, ten } = await withMonths(5)
    const res = await t.request('GET', '/v1/clients/me/payments?start_date=2026-01-31T00:00:00Z&end_date=2026-03-02T00:00:00Z', { headers: ten.userHeaders })
    expect(res.body.total).toBe(2)
    expect(res.body.items.map((p: { created_at: string }) => p.created_at)).toEqual(['2026-03-02T00:00:00.000Z', '2026-01-31T00:00:00.000Z'])
  })

  test('refuses out-of-bounds parameters with 422', async () => {
    const { t, ten } = await setup()
    for (const [qs, param] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['offset=-1', 'offset'],
      ['limit=abc', 'limit'],
      ['start_date=yesterday', 'start_date'],
    ] as const) {
      const res = await t.request('GET', `/v1/clients/me/payments?${qs}`, { headers: ten.userHeaders })
      expect(res.status).toBe(422)
      expect(res.body.detail[0].loc).toEqual(['query', param])
    }
    expect((await t.request('GET', '/v1/clients/me/payments?limit=1', { headers: ten.userHeaders })).status).toBe(200)
    expect((await t.request('GET', '/v1/clients/me/payments?limit=100', { headers: ten.userHeaders })).status).toBe(200)
  })
})
