import type { Logger } from '../../lib/logger'
import { findPlan, freePlan, type Plan } from './billing.catalog'
import type { BillingAccount, BillingStore, SubscriptionFields } from './billing.store'
import type { SubscriptionSnapshot } from './billing.stripe'

/**
 * The one place that changes a client's plan fields (plan_type, subscription_status,
 * max_devices, max_users) from billing. Billing is their only writer besides the operator. An
 * operator's hand-set max_devices/max_users are overrides that billing keeps (the limit written
 * is override ?? plan limit), so a tenant cannot undo them with a checkout and a sync.
 *
 * Status → limits:
 * - active, trialing: the subscribed plan's limits.
 * - past_due: the plan's limits still (grace while Stripe retries the card; when its retries are
 *   exhausted Stripe moves the subscription to canceled or unpaid, and the limits drop then).
 * - anything else (canceled, unpaid, incomplete, incomplete_expired, paused, none): the free
 *   plan's limits. Existing devices are kept; registrations beyond the limit are refused.
 */
export const PAID_STATUSES = new Set(['active', 'trialing', 'past_due'])

export interface PlanWriterDeps {
  store: BillingStore
  logger: Logger
  plans: () => Plan[]
  /** the clients domain's side of BillingDeps['clients'] */
  clients: { applyPlan(clientId: string, plan: BillingPlan): void | Promise<void> }
  /** told after a subscription state was applied (the composition root publishes subscription.updated) */
  subscriptionUpdated: (clientId: string) => void | Promise<void>
}

/** The plan fields billing puts in force on a client. */
export interface BillingPlan {
  planType: string
  subscriptionStatus: string
  maxDevices: number
  maxUsers: number
}

export interface ApplyOptions {
  /** ms; the provider event's `created`, when an event triggered this */
  eventAt?: number
  /** ms; our clock when the snapshot was read from Stripe */
  observedAt: number
  /** claim this event id as processed in the same transaction */
  event?: { id: string; type: string }
}

export type ApplyOutcome = 'applied' | 'stale' | 'duplicate'

/** Which catalog plan a subscription is for: its metadata, else its Stripe price id, else its price lookup key. */
export function planOfSubscription(plans: Plan[], snap: SubscriptionSnapshot): Plan | undefined {
  return (
    (snap.planId ? findPlan(plans, snap.planId) : undefined) ??
    (snap.priceId ? plans.find((p) => p.stripePriceId === snap.priceId) : undefined) ??
    (snap.lookupKey ? findPlan(plans, snap.lookupKey) : undefined)
  )
}

/**
 * Applies a subscription state (null: the client has none): the billing account's fields in one
 * store call with the event's claim, then the plan it implies put in force on the client (its
 * type, status and limits), which drops the client's cached rate limit on every hub. The client's
 * fields are written after the billing row commits: should that write fail, the next event or a
 * sync (POST /v1/billing/sync) puts the same plan in force again. Callers fetch from Stripe first.
 */
export async function applySubscription(
  deps: PlanWriterDeps,
  clientId: string,
  snap: SubscriptionSnapshot | null,
  opts: ApplyOptions,
  now: number,
): Promise<ApplyOutcome> {
  const plans = deps.plans()
  const outcome = await deps.store.applySubscription(clientId, opts.event ?? null, now, (acc) => decide(acc))
  if (outcome !== 'applied') return outcome
  const effective = snap && PAID_STATUSES.has(snap.status) ? (planOfSubscription(plans, snap) ?? freePlan(plans)) : freePlan(plans)
  await deps.clients.applyPlan(clientId, {
    planType: effective.id,
    subscriptionStatus: snap?.status ?? 'none',
    maxDevices: effective.maxDevices,
    maxUsers: effective.maxUsers,
  })
  deps.logger.info('subscription applied', { client_id: clientId, subscription: snap?.id ?? null, status: snap?.status ?? 'none' })
  await deps.subscriptionUpdated(clientId)
  return outcome

  /** the fields to write, or null when this state is older than the stored one */
  function decide(acc: BillingAccount): SubscriptionFields | null {
    if (snap && acc.providerSubscriptionId) {
      if (acc.providerSubscriptionId !== snap.id) {
        // An old subscription ending (e.g. after a plan switch) must not cancel the live one.
        if (PAID_STATUSES.has(acc.subscriptionStatus) && !PAID_STATUSES.has(snap.status)) return null
      } else {
        if (opts.eventAt !== undefined && acc.lastEventAt !== null && opts.eventAt < acc.lastEventAt) return null
        if (acc.observedAt !== null && opts.observedAt < acc.observedAt) return null
      }
    }
    const plan = snap ? planOfSubscription(plans, snap) : undefined
    if (snap && !plan) {
      deps.logger.warn('subscription matches no plan; applying free limits (set stripe_price_id in VIGIL_PLANS_FILE)', {
        client_id: clientId,
        subscription: snap.id,
        price: snap.priceId,
      })
    }
    const sameSub = snap !== null && acc.providerSubscriptionId === snap.id
    return {
      providerSubscriptionId: snap?.id ?? null,
      subscriptionStatus: snap?.status ?? 'none',
      planId: plan?.id ?? snap?.planId ?? null,
      amount: snap?.amount ?? plan?.price ?? null,
      currency: snap?.currency ?? plan?.currency ?? null,
      interval: snap?.interval ?? plan?.interval ?? null,
      currentPeriodStart: snap?.periodStart ?? null,
      currentPeriodEnd: snap?.periodEnd ?? null,
      cancelAtPeriodEnd: snap?.cancelAtPeriodEnd ?? false,
      lastEventAt: Math.max(opts.eventAt ?? 0, sameSub ? (acc.lastEventAt ?? 0) : 0) || null,
      observedAt: opts.observedAt,
    }
  }
}
