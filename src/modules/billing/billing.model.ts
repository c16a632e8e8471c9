import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'

const DateTime = t.Nullable(t.String({ format: 'date-time' }))

export const PlanInfo = t.Object({
  id: t.String(),
  name: t.String(),
  currency: t.String(),
  interval: t.String(),
  price: Type.Integer({ description: 'minor units (cents)' }),
  features: t.Array(t.String()),
  tier: t.String({ description: 'free | pro | enterprise' }),
  max_devices: Type.Integer(),
  max_users: Type.Integer(),
  rate_limit: Type.Integer({ description: 'requests per minute' }),
})

export const CheckoutRequest = t.Object({
  plan: t.Optional(t.String({ default: 'b2c_monthly', minLength: 1, maxLength: 64 })),
  success_url: t.Optional(t.String({ pattern: '^https?://', maxLength: 2048, description: 'default: {site_url}/dashboard' })),
  cancel_url: t.Optional(t.String({ pattern: '^https?://', maxLength: 2048, description: 'default: {site_url}/pricing' })),
})

export const CheckoutResponse = t.Object({ checkout_url: t.String(), session_id: t.String() })
export const PortalResponse = t.Object({ portal_url: t.String() })

export const SubscriptionResponse = t.Object({
  status: t.String({ description: "none, or Stripe's status: active, trialing, past_due, canceled, unpaid, incomplete, incomplete_expired, paused" }),
  plan_id: t.Nullable(t.String()),
  amount: t.Nullable(Type.Integer()),
  currency: t.Nullable(t.String()),
  interval: t.Nullable(t.String()),
  current_period_start: DateTime,
  current_period_end: DateTime,
  cancel_at_period_end: t.Boolean(),
})

export const BillingResponse = t.Object({
  provider_customer_id: t.Nullable(t.String()),
  provider_subscription_id: t.Nullable(t.String()),
  subscription_status: t.String(),
  subscription_plan_id: t.Nullable(t.String()),
  subscription_amount: t.Nullable(Type.Integer()),
  subscription_currency: t.Nullable(t.String()),
  subscription_interval: t.Nullable(t.String()),
  current_period_start: DateTime,
  current_period_end: DateTime,
  cancel_at_period_end: t.Boolean(),
  billing_email: t.Nullable(t.String()),
  max_devices: Type.Integer(),
  plan_type: t.String({ description: 'the plan whose limits apply now (free when no paid subscription is in force)' }),
})

export const SyncResponse = t.Object({
  synced: t.Boolean(),
  subscription: SubscriptionResponse,
  payments_recorded: Type.Integer(),
})

export const PaymentsQuery = t.Object({
  limit: t.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 24 })),
  offset: t.Optional(Type.Integer({ minimum: 0, default: 0 })),
  start_date: t.Optional(t.String({ format: 'date-time', description: 'only payments created at or after' })),
  end_date: t.Optional(t.String({ format: 'date-time', description: 'only payments created at or before' })),
})

export const Payment = t.Object({
  id: t.String(),
  invoice_id: t.String({ description: 'the provider invoice' }),
  subscription_id: t.Nullable(t.String()),
  amount: Type.Integer({ description: 'minor units: amount paid, or due when not paid' }),
  currency: t.String(),
  status: t.String({ description: 'paid | failed | open | void | uncollectible' }),
  description: t.Nullable(t.String()),
  period_start: DateTime,
  period_end: DateTime,
  invoice_url: t.Nullable(t.String()),
  invoice_pdf: t.Nullable(t.String()),
  paid_at: DateTime,
  created_at: t.String({ format: 'date-time' }),
})

export const PaymentList = t.Object({
  items: t.Array(Payment),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
})

export const WebhookResponse = t.Object({
  received: t.Boolean(),
  outcome: t.String({ description: 'applied | duplicate | stale | ignored' }),
})

export type CheckoutRequest = Static<typeof CheckoutRequest>
export type PaymentsQuery = Static<typeof PaymentsQuery>
export type SubscriptionResponse = Static<typeof SubscriptionResponse>
export type BillingResponse = Static<typeof BillingResponse>
export type Payment = Static<typeof Payment>
export type PlanInfo = Static<typeof PlanInfo>
