import { readFileSync } from 'node:fs'
import { Type as T, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ConfigError } from '../../config'

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

/** The plan every client starts on and falls back to when a paid subscription ends. */
export const FREE_PLAN_ID = 'free'

export const DEFAULT_PLANS: Plan[] = [
  {
    id: 'free',
    name: 'Free',
    tier: 'free',
    price: 0,
    currency: 'usd',
    interval: 'month',
    features: ['1 device', '7 days of raw metrics', 'Built-in recommendations'],
    maxDevices: 1,
    maxUsers: 50,
    stripePriceId: null,
  },
  {
    id: 'b2c_monthly',
    name: 'Pro (monthly)',
    tier: 'pro',
    price: 900,
    currency: 'usd',
    interval: 'month',
    features: ['10 devices', '600 requests per minute', 'AI recommendations'],
    maxDevices: 10,
    maxUsers: 50,
    stripePriceId: null,
  },
  {
    id: 'b2c_yearly',
    name: 'Pro (yearly)',
    tier: 'pro',
    price: 9000,
    currency: 'usd',
    interval: 'year',
    features: ['10 devices', '600 requests per minute', 'AI recommendations'],
    maxDevices: 10,
    maxUsers: 50,
    stripePriceId: null,
  },
  {
    id: 'b2b_monthly',
    name: 'Enterprise (monthly)',
    tier: 'enterprise',
    price: 4900,
    currency: 'usd',
    interval: 'month',
    features: ['100 devices', '6000 requests per minute', 'AI recommendations', 'Priority support'],
    maxDevices: 100,
    maxUsers: 500,
    stripePriceId: null,
  },
  {
    id: 'b2b_yearly',
    name: 'Enterprise (yearly)',
    tier: 'enterprise',
    price: 49000,
    currency: 'usd',
    interval: 'year',
    features: ['100 devices', '6000 requests per minute', 'AI recommendations', 'Priority support'],
    maxDevices: 100,
    maxUsers: 500,
    stripePriceId: null,
  },
]

/** The tier of a plan id; unknown ids (a plan removed from the catalog) fall back to free. */
export function tierOf(plans: Plan[], planId: string): Tier {
  return plans.find((p) => p.id === planId)?.tier ?? 'free'
}

export const findPlan = (plans: Plan[], planId: string): Plan | undefined => plans.find((p) => p.id === planId)

/** The free plan of a catalog (loadPlans guarantees there is one). */
export const freePlan = (plans: Plan[]): Plan => findPlan(plans, FREE_PLAN_ID) ?? DEFAULT_PLANS[0]!

/** One entry of VIGIL_PLANS_FILE: overrides a default plan by id, or (with every field) adds one. */
const PlanEntry = T.Object(
  {
    id: T.String({ pattern: '^[a-z0-9_-]{1,64}$' }),
    name: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
    tier: T.Optional(T.Union([T.Literal('free'), T.Literal('pro'), T.Literal('enterprise')])),
    price: T.Optional(T.Integer({ minimum: 0 })),
    currency: T.Optional(T.String({ pattern: '^[a-zA-Z]{3}$' })),
    interval: T.Optional(T.Union([T.Literal('month'), T.Literal('year')])),
    features: T.Optional(T.Array(T.String())),
    max_devices: T.Optional(T.Integer({ minimum: 0 })),
    max_users: T.Optional(T.Integer({ minimum: 1 })),
    stripe_price_id: T.Optional(T.Union([T.String({ pattern: '^price_' }), T.Null()])),
    /** drop a default plan from the catalog (existing subscribers keep their limits until it ends) */
    disabled: T.Optional(T.Boolean()),
  },
  { additionalProperties: false },
)
const PlansFile = T.Object({ plans: T.Array(PlanEntry) }, { additionalProperties: false })
type PlanEntry = Static<typeof PlanEntry>

/**
 * The catalog: the defaults, overridden by VIGIL_PLANS_FILE when set. A bad file stops the
 * service at start with a ConfigError naming the file and the offending entry, rather than
 * selling at a wrong price.
 */
export function loadPlans(file: string | null): Plan[] {
  if (!file) return DEFAULT_PLANS
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new ConfigError(`VIGIL_PLANS_FILE ${file} could not be read as JSON: ${(err as Error).message}`)
  }
  return plansFrom(raw, `VIGIL_PLANS_FILE ${file}`)
}

/** Validates and merges a parsed plans document onto the defaults. */
export function plansFrom(raw: unknown, source = 'plans'): Plan[] {
  const doc = Array.isArray(raw) ? { plans: raw } : raw
  if (!Value.Check(PlansFile, doc)) {
    const first = Value.Errors(PlansFile, doc).First()
    throw new ConfigError(`${source}: ${first ? `${first.path || '/'}: ${first.message}` : 'invalid document'} (expected {"plans": [{"id": ..., ...}]})`)
  }
  const plans = new Map(DEFAULT_PLANS.map((p) => [p.id, { ...p }]))
  const seen = new Set<string>()
  for (const entry of doc.plans) {
    if (seen.has(entry.id)) throw new ConfigError(`${source}: plan "${entry.id}" appears twice`)
    seen.add(entry.id)
    if (entry.disabled) {
      plans.delete(entry.id)
      continue
    }
    plans.set(entry.id, merge(plans.get(entry.id), entry, source))
  }
  const free = plans.get(FREE_PLAN_ID)
  if (!free) throw new ConfigError(`${source}: the "free" plan cannot be removed; clients fall back to it`)
  if (free.price !== 0 || free.tier !== 'free') throw new ConfigError(`${source}: the "free" plan must have price 0 and tier "free"`)
  return [...plans.values()]
}

function merge(base: Plan | undefined, e: PlanEntry, source: string): Plan {
  if (!base) {
    const missing = (['name', 'tier', 'price', 'currency', 'interval', 'max_devices'] as const).filter((k) => e[k] === undefined)
    if (missing.length) throw new ConfigError(`${source}: new plan "${e.id}" needs ${missing.join(', ')}`)
  }
  return {
    id: e.id,
    name: e.name ?? base!.name,
    tier: e.tier ?? base!.tier,
    price: e.price ?? base!.price,
    currency: (e.currency ?? base!.currency).toLowerCase(),
    interval: e.interval ?? base!.interval,
    features: e.features ?? base?.features ?? [],
    maxDevices: e.max_devices ?? base!.maxDevices,
    maxUsers: e.max_users ?? base?.maxUsers ?? 50,
    stripePriceId: e.stripe_price_id !== undefined ? e.stripe_price_id : (base?.stripePriceId ?? null),
  }
}
