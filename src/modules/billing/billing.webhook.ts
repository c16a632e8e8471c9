import type Stripe from 'stripe'
import { AppError } from '../../http/errors'
import { assertEventShape } from './billing.event'
import { applySubscription, type ApplyOutcome } from './billing.plan-writer'
import { recordInvoice } from './billing.payments'
import { requireStripe, type BillingDeps } from './billing.service'
import { customerIdOf, isMissing, providerError, snapshotOf, type SubscriptionSnapshot } from './billing.stripe'

/** Stripe's own default: a signed event older than this (seconds) is refused as a possible replay. */
export const SIGNATURE_TOLERANCE_S = 300

export type WebhookOutcome = ApplyOutcome | 'ignored'

/**
 * Verifies and applies one Stripe event. Each event id is applied once (a redelivery answers
 * `duplicate` and changes nothing). Subscription events re-read the subscription from Stripe
 * and skip events older than the last one applied, so order of arrival does not matter.
 * Stripe is always called before, never inside, the transaction that writes the result.
 */
export async function handleWebhook(deps: BillingDeps, raw: string, signature: string | null): Promise<WebhookOutcome> {
  const stripe = requireStripe(deps)
  const secret = deps.config.stripe.webhookSecret
  if (!secret)
    throw new AppError(
      'billing_not_configured',
      'The billing webhook is not configured: the operator must set STRIPE_WEBHOOK_SECRET (the signing secret of the Stripe endpoint)',
    )
  if (!signature) throw new AppError('invalid_signature', 'Missing stripe-signature header', 'stripe-signature')
  let event: Stripe.Event
  try {
    // receivedAt from our clock, so the tolerance follows the injected clock like everything else.
    event = await stripe.webhooks.constructEventAsync(raw, signature, secret, SIGNATURE_TOLERANCE_S, undefined, deps.clock.now())
  } catch (err) {
    // The SDK's first sentence says what failed; the rest is advice for integrators.
    const reason = (err as Error).message.split(/[.?!]\s/)[0]!.trim()
    deps.logger.warn('webhook signature refused', { reason })
    throw new AppError('invalid_signature', `The stripe-signature header does not verify: ${reason}`, 'stripe-signature')
  }
  assertEventShape(event)
  // cheap first look; the claim in each write's transaction is what makes an event count once
  if (await deps.store.eventSeen(event.id)) return 'duplicate'
  const outcome = await dispatch(deps, stripe, event)
  deps.logger.info('webhook event', { event: event.id, type: event.type, outcome })
  return outcome
}

async function dispatch(deps: BillingDeps, stripe: Stripe, event: Stripe.Event): Promise<WebhookOutcome> {
  switch (event.type) {
    case 'checkout.session.completed':
      return checkoutCompleted(deps, stripe, event, event.data.object)
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return subscriptionChanged(deps, stripe, event, event.data.object)
    case 'invoice.paid':
    case 'invoice.payment_failed':
      return invoiceEvent(deps, event, event.data.object, event.type === 'invoice.paid' ? 'paid' : 'failed')
    default:
      return ignore(deps, event)
  }
}

async function ignore(deps: BillingDeps, event: Stripe.Event): Promise<WebhookOutcome> {
  return (await deps.store.recordEvent(event.id, event.type, 'ignored', deps.clock.now())) ? 'ignored' : 'duplicate'
}

/** A client id from our own metadata, only if that client (still) exists. */
async function knownClient(deps: BillingDeps, clientId: string | null | undefined): Promise<string | null> {
  return clientId && (await deps.clients.find(clientId)) ? clientId : null
}

async function checkoutCompleted(deps: BillingDeps, stripe: Stripe, event: Stripe.Event, session: Stripe.Checkout.Session) {
  const clientId = await knownClient(deps, session.client_reference_id ?? session.metadata?.client_id)
  const customerId = customerIdOf(session.customer)
  const subscriptionId = customerIdOf(session.subscription)
  if (session.mode !== 'subscription' || !clientId || !subscriptionId) return ignore(deps, event)
  if (customerId) await deps.store.setCustomerIfUnset(clientId, customerId, deps.clock.now())
  const observedAt = deps.clock.now()
  let sub: Stripe.Subscription
  try {
    sub = await stripe.subscriptions.retrieve(subscriptionId)
  } catch (err) {
    // a checkout for a subscription Stripe does not know: nothing to apply, and no retry will change that
    if (isMissing(err)) return ignore(deps, event)
    throw providerError(deps.logger, 'read the subscription', err)
  }
  return apply(deps, event, clientId, snapshotOf(sub), observedAt)
}

async function subscriptionChanged(deps: BillingDeps, stripe: Stripe, event: Stripe.Event, payload: Stripe.Subscription) {
  const customerId = customerIdOf(payload.customer)
  const clientId =
    (await knownClient(deps, payload.metadata?.client_id)) ?? (customerId ? ((await deps.store.accountByCustomer(customerId))?.clientId ?? null) : null)
  if (!clientId) return ignore(deps, event)
  // Cheap out-of-order check first: an event older than the last one applied is obsolete.
  const acc = await deps.store.account(clientId)
  if (acc?.providerSubscriptionId === payload.id && acc.lastEventAt !== null && event.created * 1000 < acc.lastEventAt) {
    return (await deps.store.recordEvent(event.id, event.type, 'ignored', deps.clock.now())) ? 'stale' : 'duplicate'
  }
  if (customerId) await deps.store.setCustomerIfUnset(clientId, customerId, deps.clock.now())
  const observedAt = deps.clock.now()
  let snap: SubscriptionSnapshot
  try {
    // The payload may be older than the truth: Stripe's current state is what we apply.
    snap = snapshotOf(await stripe.subscriptions.retrieve(payload.id))
  } catch (err) {
    if (!isMissing(err)) throw providerError(deps.logger, 'read the subscription', err)
    snap = { ...snapshotOf(payload), status: 'canceled' } // gone at Stripe: nothing left to pay for
  }
  return apply(deps, event, clientId, snap, observedAt)
}

function apply(deps: BillingDeps, event: Stripe.Event, clientId: string, snap: SubscriptionSnapshot, observedAt: number) {
  return applySubscription(deps, clientId, snap, { eventAt: event.created * 1000, observedAt, event: { id: event.id, type: event.type } }, deps.clock.now())
}

async function invoiceEvent(deps: BillingDeps, event: Stripe.Event, inv: Stripe.Invoice, kind: 'paid' | 'failed'): Promise<WebhookOutcome> {
  const customerId = customerIdOf(inv.customer)
  const clientId =
    (customerId ? (await deps.store.accountByCustomer(customerId))?.clientId : undefined) ??
    (await knownClient(deps, inv.parent?.subscription_details?.metadata?.client_id))
  if (!clientId) return ignore(deps, event)
  const recorded = await recordInvoice(deps, clientId, inv, kind, { id: event.id, type: event.type })
  return recorded === 'duplicate' ? 'duplicate' : 'applied'
}
