import type Stripe from 'stripe'
import type { Config } from '../../config'
import { AppError } from '../../http/errors'
import { toIso, type Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { findPlan, type Plan } from './billing.catalog'
import type { BillingResponse, CheckoutRequest, Payment, PaymentsQuery, PlanInfo, SubscriptionResponse } from './billing.model'
import { applySubscription, PAID_STATUSES, type BillingPlan } from './billing.plan-writer'
import { recordInvoice } from './billing.payments'
import { callStripe, snapshotOf } from './billing.stripe'
import type { BillingStore, PaymentRow } from './billing.store'

export interface BillingDeps {
  store: BillingStore
  clock: Clock
  logger: Logger
  config: Pick<Config, 'stripe' | 'siteUrl' | 'rateLimits'>
  plans: () => Plan[]
  /** null when billing is not configured (no STRIPE_SECRET_KEY) */
  stripe: Stripe | null
  clients: BillingClients
  /** told after a subscription state was applied (the composition root publishes subscription.updated) */
  subscriptionUpdated: (clientId: string) => void | Promise<void>
}

/** What billing reads of a client. */
export interface BillingClientView {
  name: string | null
  billing_email: string | null
  max_devices: number
  plan_type: string
}

/** What billing needs of the clients domain, the owner of the plan fields it changes. */
export interface BillingClients {
  /** null when the client does not exist */
  find(clientId: string): BillingClientView | null | Promise<BillingClientView | null>
  /** puts a plan's type, status and limits in force (the operator's overrides win), after billing's own row committed */
  applyPlan(clientId: string, plan: BillingPlan): void | Promise<void>
}

const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms))

/** The Stripe client, or 503 telling the operator what to set. */
export function requireStripe(deps: BillingDeps): Stripe {
  if (!deps.stripe) {
    throw new AppError(
      'billing_not_configured',
      'Billing is not configured on this instance: the operator must set STRIPE_SECRET_KEY (and STRIPE_WEBHOOK_SECRET for the webhook)',
    )
  }
  return deps.stripe
}

export function planInfo(plan: Plan, rateLimits: BillingDeps['config']['rateLimits']): PlanInfo {
  return {
    id: plan.id,
    name: plan.name,
    currency: plan.currency,
    interval: plan.interval,
    price: plan.price,
    features: plan.features,
    tier: plan.tier,
    max_devices: plan.maxDevices,
    max_users: plan.maxUsers,
    rate_limit: rateLimits[plan.tier],
  }
}

export async function subscriptionOf(deps: Pick<BillingDeps, 'store'>, clientId: string): Promise<SubscriptionResponse> {
  const acc = await deps.store.account(clientId)
  return {
    status: acc?.subscriptionStatus ?? 'none',
    plan_id: acc?.planId ?? null,
    amount: acc?.amount ?? null,
    currency: acc?.currency ?? null,
    interval: acc?.interval ?? null,
    current_period_start: isoOrNull(acc?.currentPeriodStart ?? null),
    current_period_end: isoOrNull(acc?.currentPeriodEnd ?? null),
    cancel_at_period_end: acc?.cancelAtPeriodEnd ?? false,
  }
}

export async function billingOf(deps: BillingDeps, clientId: string): Promise<BillingResponse> {
  const client = await deps.clients.find(clientId)
  if (!client) throw new AppError('not_found', 'Client not found')
  const acc = await deps.store.account(clientId)
  const sub = await subscriptionOf(deps, clientId)
  return {
    provider_customer_id: acc?.providerCustomerId ?? null,
    provider_subscription_id: acc?.providerSubscriptionId ?? null,
    subscription_status: sub.status,
    subscription_plan_id: sub.plan_id,
    subscription_amount: sub.amount,
    subscription_currency: sub.currency,
    subscription_interval: sub.interval,
    current_period_start: sub.current_period_start,
    current_period_end: sub.current_period_end,
    cancel_at_period_end: sub.cancel_at_period_end,
    billing_email: client.billing_email,
    max_devices: client.max_devices,
    plan_type: client.plan_type,
  }
}

/** The client's Stripe customer: created once, on first checkout, then reused. */
async function customerFor(deps: BillingDeps, stripe: Stripe, clientId: string): Promise<string> {
  const existing = (await deps.store.account(clientId))?.providerCustomerId
  if (existing) return existing
  const client = await deps.clients.find(clientId)
  if (!client) throw new AppError('not_found', 'Client not found')
  // The idempotency key makes two racing first checkouts create one customer, not two.
  const customer = await callStripe(deps.logger, 'create the customer', () =>
    stripe.customers.create(
      { name: client.name ?? undefined, email: client.billing_email ?? undefined, metadata: { client_id: clientId } },
      { idempotencyKey: `vigil-customer-${clientId}` },
    ),
  )
  return deps.store.setCustomerIfUnset(clientId, customer.id, deps.clock.now())
}

export async function checkout(deps: BillingDeps, clientId: string, req: Partial<CheckoutRequest>) {
  const planId = req.plan ?? 'b2c_monthly'
  const plan = findPlan(deps.plans(), planId)
  if (!plan || plan.price <= 0) {
    const paid = deps
      .plans()
      .filter((p) => p.price > 0)
      .map((p) => p.id)
    throw new AppError('invalid_parameter', `Unknown plan "${planId}"; choose one of ${paid.join(', ')}`, 'plan')
  }
  const stripe = requireStripe(deps)
  // A second subscription would bill the client twice; plan changes go through the portal.
  const current = await deps.store.account(clientId)
  if (current && PAID_STATUSES.has(current.subscriptionStatus)) {
    throw new AppError(
      'conflict',
      `This account already has a ${current.subscriptionStatus} subscription (${current.planId ?? 'unknown plan'}); change or cancel it in the customer portal (POST /v1/billing/portal)`,
    )
  }
  const customer = await customerFor(deps, stripe, clientId)
  const site = deps.config.siteUrl
  const metadata = { client_id: clientId, plan_id: plan.id }
  // Without a configured Stripe price, the catalog's price goes inline: a secret key alone is enough to sell.
  const lineItem: Stripe.Checkout.SessionCreateParams.LineItem = plan.stripePriceId
    ? { price: plan.stripePriceId, quantity: 1 }
    : {
        quantity: 1,
        price_data: {
          currency: plan.currency,
          unit_amount: plan.price,
          recurring: { interval: plan.interval },
          product_data: { name: `Vigil ${plan.name}`, metadata: { plan_id: plan.id } },
        },
      }
  const session = await callStripe(deps.logger, 'create the checkout session', () =>
    stripe.checkout.sessions.create({
      mode: 'subscription',
      customer,
      client_reference_id: clientId,
      line_items: [lineItem],
      metadata,
      subscription_data: { metadata },
      success_url: req.success_url ?? `${site}/dashboard?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: req.cancel_url ?? `${site}/pricing?checkout=canceled`,
    }),
  )
  if (!session.url) throw new AppError('provider_error', 'Stripe returned a checkout session without a URL')
  deps.logger.info('checkout session created', { client_id: clientId, plan: plan.id, session: session.id })
  return { checkout_url: session.url, session_id: session.id }
}

export async function portal(deps: BillingDeps, clientId: string) {
  const stripe = requireStripe(deps)
  const customer = (await deps.store.account(clientId))?.providerCustomerId
  if (!customer) throw new AppError('no_customer', 'This account has no Stripe customer yet; start a subscription with POST /v1/billing/checkout first')
  const session = await callStripe(deps.logger, 'create the portal session', () =>
    stripe.billingPortal.sessions.create({ customer, return_url: `${deps.config.siteUrl}/settings/billing` }),
  )
  return { portal_url: session.url }
}

/** Live statuses first, then the newest: the subscription that decides the client's limits. */
const rank = (s: Stripe.Subscription) => (PAID_STATUSES.has(s.status) ? 1 : 0)

/**
 * The repair button: reads the customer's subscriptions and recent invoices from Stripe and
 * applies them, for when webhooks were missed. Stripe is called first, the DB written after.
 */
export async function sync(deps: BillingDeps, clientId: string) {
  const stripe = requireStripe(deps)
  const customer = (await deps.store.account(clientId))?.providerCustomerId
  if (!customer) throw new AppError('no_customer', 'This account has no Stripe customer yet; nothing to sync')
  const observedAt = deps.clock.now()
  const [subs, invoices] = await Promise.all([
    callStripe(deps.logger, 'list subscriptions', () => stripe.subscriptions.list({ customer, status: 'all', limit: 10 })),
    callStripe(deps.logger, 'list invoices', () => stripe.invoices.list({ customer, limit: 24 })),
  ])
  const best = [...subs.data].sort((a, b) => rank(b) - rank(a) || b.created - a.created)[0]
  const outcome = await applySubscription(deps, clientId, best ? snapshotOf(best) : null, { observedAt }, deps.clock.now())
  let recorded = 0
  for (const inv of invoices.data) if ((await recordInvoice(deps, clientId, inv, null)) === 'applied') recorded++
  return { synced: outcome === 'applied', subscription: await subscriptionOf(deps, clientId), payments_recorded: recorded }
}

export async function payments(deps: BillingDeps, clientId: string, q: PaymentsQuery) {
  const start = q.start_date ? Date.parse(q.start_date) : undefined
  const end = q.end_date ? Date.parse(q.end_date) : undefined
  const limit = q.limit ?? 24
  const offset = q.offset ?? 0
  const { items, total } = await deps.store.listPayments(clientId, { limit, offset, start, end })
  return { items: items.map(paymentView), total, limit, offset }
}

const paymentView = (p: PaymentRow): Payment => ({
  id: p.id,
  invoice_id: p.providerInvoiceId,
  subscription_id: p.providerSubscriptionId,
  amount: p.amount,
  currency: p.currency,
  status: p.status,
  description: p.description,
  period_start: isoOrNull(p.periodStart),
  period_end: isoOrNull(p.periodEnd),
  invoice_url: p.invoiceUrl,
  invoice_pdf: p.invoicePdf,
  paid_at: isoOrNull(p.paidAt),
  created_at: toIso(p.createdAt),
})
