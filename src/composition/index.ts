import type { AppContext, AppDeps } from '../context'
import type { Authenticator } from '../http/principal'
import type { Job } from '../jobs/scheduler'
import { systemResolver } from '../lib/outbound/outbound.fetch'
import { localAddresses } from '../lib/outbound/outbound.policy'
import { resolveSecretKey } from '../lib/secret-box'
import { aiDeps } from '../modules/ai/ai.routes'
import { runDueGenerations } from '../modules/ai/ai.jobs'
import type { MetricsSource } from '../modules/ai/ai.metrics-source'
import { apiKeyVerifier } from '../modules/api-keys/api-keys.verifier'
import { loadPlans } from '../modules/billing/billing.catalog'
import { pruneBillingEvents } from '../modules/billing/billing.jobs'
import { stripeClient } from '../modules/billing/billing.stripe'
import { clientLimits, memberRoles } from '../modules/clients/clients.limits'
import { integrityCheck } from '../modules/health/health.jobs'
import { runRetention, runRollup } from '../modules/metrics/metrics.jobs'
import { fieldSeries, metricsStats, summarizeDevice } from '../modules/metrics/metrics.service'
import { DEFAULT_PASSWORD_COST } from '../modules/users/users.passwords'
import { sessionRevocations } from '../modules/users/users.revocations'
import { purgeOldRefreshTokens } from '../modules/users/users.sessions'
import { accessTokens, currentRoles } from '../modules/users/users.tokens'
import { wireIdentity } from './identity'
import { wireFleet } from './fleet'
import { wireMonitoring } from './monitoring'

/**
 * The composition root: every dependency is built here, once, and handed to the modules; every
 * scheduled job is registered here, in one list. Modules declare routes and services; they do
 * not build what they depend on.
 */
export function compose(deps: AppDeps) {
  const ctx = createContext(deps)
  // each group takes what the groups before it provide; none reaches back
  const identity = wireIdentity(ctx)
  const fleet = wireFleet(ctx, identity)
  const monitoring = wireMonitoring(ctx, identity, fleet)
  const modules = { ...identity, ...fleet, ...monitoring }
  return { ctx, modules, jobs: jobList(ctx) }
}

export type Modules = ReturnType<typeof compose>['modules']

/**
 * Every scheduled job, named `<domain>.<what it does>`. Schedules are UTC; the daily ones run
 * at 03:17, off the hour when other machines' cron jobs start.
 */
function jobList(ctx: AppContext): Job[] {
  const ai = aiDeps(ctx)
  return [
    // just after the ingest grace period of each minute
    { name: 'metrics.rollup', cron: '35 * * * * *', run: () => runRollup(ctx) },
    { name: 'metrics.retention', cron: '0 17 * * * *', run: () => runRetention(ctx).then(() => undefined) },
    // each client's own cron pattern decides whether it is its turn
    { name: 'ai.recommendations', cron: '0 * * * * *', run: () => runDueGenerations(ai).then(() => undefined) },
    { name: 'billing.prune-events', cron: '0 17 3 * * *', run: () => pruneBillingEvents(ctx) },
    { name: 'users.purge-refresh-tokens', cron: '0 17 3 * * *', run: () => void purgeOldRefreshTokens({ sqlite: ctx.db.sqlite, clock: ctx.clock }) },
    { name: 'health.integrity-check', cron: '0 23 * * * *', run: integrityCheck(ctx) },
  ]
}

/** The recommendation engine reads metrics through the metrics domain's service. */
const metricsSourceOf = (deps: AppDeps): MetricsSource => ({
  summary: (clientId, deviceId, hours) => summarizeDevice(deps, clientId, deviceId, hours),
  series: (clientId, deviceId, field, hours) => fieldSeries(deps, clientId, deviceId, field, hours),
})

function createContext(deps: AppDeps): AppContext {
  const plans = deps.plans ?? loadPlans(deps.config.plansFile)
  const tokens = accessTokens(deps.jwtSecret, deps.clock, currentRoles(deps.db.sqlite), sessionRevocations(deps.db.sqlite, deps.clock))
  const apiKeys = apiKeyVerifier(deps.db.sqlite, deps.clock)
  const limits = clientLimits(deps.db.sqlite, () => plans, deps.config.rateLimits)
  const auth: Authenticator = {
    verifyAccessToken: (token) => tokens.verify(token),
    verifyApiKey: (key) => apiKeys.verify(key),
    rateLimitFor: (clientId) => limits.rateLimitFor(clientId),
    memberRole: memberRoles(deps.db.sqlite),
  }
  return {
    config: deps.config,
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    fetch: deps.fetch ?? fetch,
    outbound: { fetch: deps.fetch ?? fetch, resolve: deps.resolve ?? systemResolver, selfAddresses: localAddresses(deps.config.host) },
    startedAt: deps.clock.now(),
    tokens,
    apiKeys,
    limits,
    auth,
    plans: () => plans,
    stripe: deps.stripe !== undefined ? deps.stripe : stripeClient(deps.config.stripe),
    secretKey: resolveSecretKey(deps.secretKey, deps.config.secretKey, deps.logger),
    metricsSource: deps.metricsSource ?? metricsSourceOf(deps),
    passwordCost: deps.passwordCost ?? DEFAULT_PASSWORD_COST,
    statProviders: [() => metricsStats(deps)],
  }
}

