import type Stripe from 'stripe'
import type { Config } from '../../config'
import { AppError } from '../../http/errors'
import type { Logger } from '../../lib/logger'

/**
 * The Stripe client, or null when STRIPE_SECRET_KEY is unset (billing then answers 503 on the
 * provider flows and keeps serving reads). STRIPE_API_BASE points it at another host, e.g. a
 * local fake in tests.
 */
export function stripeClient(cfg: Config['stripe']): Stripe | null {
  if (!cfg.secretKey) return null
  const base = cfg.apiBase ? new URL(cfg.apiBase) : null
  // Loaded only when billing is configured: the SDK costs several MB of RSS at startup.
  const mod = require('stripe') as typeof Stripe | { default: typeof Stripe }
  const StripeSdk = 'default' in mod ? mod.default : mod
  return new StripeSdk(cfg.secretKey, {
    ...(base && {
      host: base.hostname,
      port: base.port || (base.protocol === 'http:' ? 80 : 443),
      protocol: base.protocol === 'http:' ? 'http' : 'https',
    }),
    maxNetworkRetries: 2,
    timeout: 10_000,
    appInfo: { name: 'vigil' },
  })
}

/** What billing needs of a Stripe subscription, whatever the API version's shape. */
export interface SubscriptionSnapshot {
  id: string
  customerId: string
  status: string
  clientId: string | null
  planId: string | null
  priceId: string | null
  lookupKey: string | null
  amount: number | null
  currency: string | null
  interval: string | null
  /** ms since epoch */
  periodStart: number | null
  periodEnd: number | null
  cancelAtPeriodEnd: boolean
}

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : (v?.id ?? null))
const ms = (seconds: unknown) => (typeof seconds === 'number' ? seconds * 1000 : null)

export function snapshotOf(sub: Stripe.Subscription): SubscriptionSnapshot {
  const item = sub.items?.data?.[0]
  const price = item?.price
  // Before API 2025-03-31 the period lived on the subscription; since then on each item.
  const legacy = sub as unknown as { current_period_start?: number; current_period_end?: number }
  return {
    id: sub.id,
    customerId: idOf(sub.customer) ?? '',
    status: sub.status,
    clientId: sub.metadata?.client_id ?? null,
    planId: sub.metadata?.plan_id ?? null,
    priceId: price?.id ?? null,
    lookupKey: price?.lookup_key ?? null,
    amount: price?.unit_amount ?? null,
    currency: price?.currency ?? sub.currency ?? null,
    interval: price?.recurring?.interval ?? null,
    periodStart: ms(legacy.current_period_start ?? item?.current_period_start),
    periodEnd: ms(legacy.current_period_end ?? item?.current_period_end),
    cancelAtPeriodEnd: !!sub.cancel_at_period_end,
  }
}

/** The subscription an invoice belongs to: `parent.subscription_details` now, `subscription` before. */
export function invoiceSubscriptionId(inv: Stripe.Invoice): string | null {
  const legacy = inv as unknown as { subscription?: string | { id: string } | null }
  return idOf(inv.parent?.subscription_details?.subscription) ?? idOf(legacy.subscription)
}

export const customerIdOf = idOf

/**
 * Runs a Stripe call and turns its failure into a 502 whose message is safe to show: Stripe's
 * error code and request id, never the key or the raw upstream message.
 */
export async function callStripe<T>(logger: Logger, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    throw providerError(logger, what, err)
  }
}

export function providerError(logger: Logger, what: string, err: unknown): AppError {
  const e = err as { type?: string; code?: string; statusCode?: number; requestId?: string }
  logger.warn('stripe call failed', { call: what, type: e.type, code: e.code, status: e.statusCode, stripe_request_id: e.requestId })
  const detail = [e.code ?? e.type, e.requestId && `request ${e.requestId}`].filter(Boolean).join(', ')
  return new AppError('provider_error', `Stripe could not ${what}${detail ? ` (${detail})` : ''}; try again later`)
}

/** True when Stripe says the object does not exist (e.g. a subscription deleted in test mode). */
export const isMissing = (err: unknown) => (err as { code?: string })?.code === 'resource_missing'
