import { describe, expect, test } from 'bun:test'
import type Stripe from 'stripe'
import { invoiceSubscriptionId, snapshotOf, stripeClient } from '../../../src/modules/billing/billing.stripe'

const item = (extra: Record<string, unknown> = {}) => ({
  id: 'si_1',
  price: { id: 'price_1', unit_amount: 900, currency: 'usd', recurring: { interval: 'month' }, lookup_key: 'b2c_monthly' },
  ...extra,
})

describe('snapshotOf', () => {
  test('reads the period from the item (current API versions)', () => {
    const sub = {
      id: 'sub_1',
      customer: 'cus_1',
      status: 'active',
      metadata: { client_id: 'cli_1' },
      cancel_at_period_end: true,
      items: { data: [item({ current_period_start: 100, current_period_end: 200 })] },
    }
    expect(snapshotOf(sub as unknown as Stripe.Subscription)).toEqual({
      id: 'sub_1',
      customerId: 'cus_1',
      status: 'active',
      clientId: 'cli_1',
      planId: null,
      priceId: 'price_1',
      lookupKey: 'b2c_monthly',
      amount: 900,
      currency: 'usd',
      interval: 'month',
      periodStart: 100_000,
      periodEnd: 200_000,
      cancelAtPeriodEnd: true,
    })
  })

  test('reads the period from the subscription (API versions before 2025-03-31) and an expanded customer', () => {
    const sub = {
      id: 'sub_1',
      customer: { id: 'cus_9' },
      status: 'past_due',
      metadata: {},
      current_period_start: 10,
      current_period_end: 20,
      items: { data: [item()] },
    }
    expect(snapshotOf(sub as unknown as Stripe.Subscription)).toMatchObject({
      customerId: 'cus_9',
      periodStart: 10_000,
      periodEnd: 20_000,
      cancelAtPeriodEnd: false,
    })
  })
})

describe('invoiceSubscriptionId', () => {
  test('reads parent.subscription_details now and subscription before', () => {
    expect(invoiceSubscriptionId({ parent: { subscription_details: { subscription: 'sub_new' } } } as unknown as Stripe.Invoice)).toBe('sub_new')
    expect(invoiceSubscriptionId({ parent: null, subscription: 'sub_old' } as unknown as Stripe.Invoice)).toBe('sub_old')
    expect(invoiceSubscriptionId({ parent: null } as unknown as Stripe.Invoice)).toBeNull()
  })
})

describe('stripeClient', () => {
  test('is null without a secret key', () => {
    expect(stripeClient({ secretKey: null, webhookSecret: 'whsec_x', apiBase: null })).toBeNull()
    expect(stripeClient({ secretKey: 'sk_test_x', webhookSecret: null, apiBase: null })).not.toBeNull()
  })
})
