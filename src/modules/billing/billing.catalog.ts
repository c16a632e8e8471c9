/**
 * The plan catalog. Each plan belongs to a tier; the tier sets the rate limit (from config,
 * VIGIL_RATE_LIMIT_*), the plan sets price and device/user limits.
 */
export type Tier = 'free' | 'pro' | 'enterprise'

export interface Plan {
  id: string
  name: string
  tier: Tier
  price: number // minor units
  currency: string
  interval: 'month' | 'year'
  features: string[]
  maxDevices: number
  maxUsers: number
  stripePriceId: string | null
}

export const DEFAULT_PLANS: Plan[] = [
  { id: 'free', name: 'Free', tier: 'free', price: 0, currency: 'usd', interval: 'month', features: ['1 device', '7 days of raw metrics', 'Built-in recommendations'], maxDevices: 1, maxUsers: 50, stripePriceId: null },
  { id: 'b2c_monthly', name: 'Pro (monthly)', tier: 'pro', price: 900, currency: 'usd', interval: 'month', features: ['10 devices', '600 requests per minute', 'AI recommendations'], maxDevices: 10, maxUsers: 50, stripePriceId: null },
  { id: 'b2c_yearly', name: 'Pro (yearly)', tier: 'pro', price: 9000, currency: 'usd', interval: 'year', features: ['10 devices', '600 requests per minute', 'AI recommendations'], maxDevices: 10, maxUsers: 50, stripePriceId: null },
  { id: 'b2b_monthly', name: 'Enterprise (monthly)', tier: 'enterprise', price: 4900, currency: 'usd', interval: 'month', features: ['100 devices', '6000 requests per minute', 'AI recommendations', 'Priority support'], maxDevices: 100, maxUsers: 500, stripePriceId: null },
  { id: 'b2b_yearly', name: 'Enterprise (yearly)', tier: 'enterprise', price: 49000, currency: 'usd', interval: 'year', features: ['100 devices', '6000 requests per minute', 'AI recommendations', 'Priority support'], maxDevices: 100, maxUsers: 500, stripePriceId: null },
]

/** The tier of a plan id; unknown ids (a plan removed from the catalog) fall back to free. */
export function tierOf(plans: Plan[], planId: string): Tier {
  return plans.find((p) => p.id === planId)?.tier ?? 'free'
}
