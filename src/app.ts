import { Elysia } from 'elysia'
import './lib/date-time' // the strict date-time format, for every schema
import type { AppContext, AppDeps } from './context'
import { gateway } from './http/gateway'
import { authGuards } from './http/auth'
import { openapiDocs } from './http/openapi'
import { pages } from './http/pages'
import { memoryRateLimiter } from './http/rate-limiter'
import { requestPipeline } from './http/pipeline'
import { directRoutes } from './http/direct-routes'
import type { Authenticator } from './http/principal'
import { loadPlans } from './modules/billing/billing.catalog'
import { stripeClient } from './modules/billing/billing.stripe'
import { billingRoutes } from './modules/billing/billing.routes'
import { accessTokens, currentRoles } from './modules/users/users.tokens'
import { sessionRevocations } from './modules/users/users.revocations'
import { DEFAULT_PASSWORD_COST } from './modules/users/users.passwords'
import { usersRoutes } from './modules/users/users.routes'
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes'
import { clientsRoutes } from './modules/clients/clients.routes'
import { invitationsRoutes } from './modules/clients/invitations.routes'
import { adminRoutes } from './modules/admin/admin.routes'
import { versionsRoutes } from './modules/versions/versions.routes'
import { apiKeyVerifier } from './modules/api-keys/api-keys.verifier'
import { clientLimits, memberRoles } from './modules/clients/clients.limits'
import { healthRoutes } from './modules/health/health.routes'
import { recommendationsRoutes } from './modules/recommendations/recommendations.routes'
import { aiRoutes } from './modules/ai/ai.routes'
import { fieldSeries, metricsStats, summarizeDevice } from './modules/metrics/metrics.service'
import type { MetricsSource } from './modules/ai/ai.metrics-source'
import { resolveSecretKey } from './lib/secret-box'
import { systemResolver } from './lib/outbound/outbound.fetch'
import { localAddresses } from './lib/outbound/outbound.policy'
import { devicesRoutes } from './modules/devices/devices.routes'
import { metricsIngestRoutes, metricsRoutes } from './modules/metrics/metrics.routes'

/** The recommendation engine reads metrics through the metrics domain's service. */
const metricsSourceOf = (deps: AppDeps): MetricsSource => ({
  summary: (clientId, deviceId, hours) => summarizeDevice(deps, clientId, deviceId, hours),
  series: (clientId, deviceId, field, hours) => fieldSeries(deps, clientId, deviceId, field, hours),
})

export function createContext(deps: AppDeps): AppContext {
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
    jobs: [],
    secretKey: resolveSecretKey(deps.secretKey, deps.config.secretKey, deps.logger),
    metricsSource: deps.metricsSource ?? metricsSourceOf(deps),
    passwordCost: deps.passwordCost ?? DEFAULT_PASSWORD_COST,
    statProviders: [() => metricsStats(deps)],
  }
}

/** The whole HTTP service: cross-cutting plugins first, in order, then one module per domain. */
export function createApp(deps: AppDeps) {
  const ctx = createContext(deps)
  const pipeline = requestPipeline({ config: ctx.config, clock: ctx.clock, logger: ctx.logger, limiter: deps.limiter ?? memoryRateLimiter(), auth: ctx.auth, storage: ctx.db.health })
  const direct = directRoutes(pipeline, ctx.config.maxBodyBytes, metricsIngestRoutes(ctx))
  // Bun's router serves the direct routes; Elysia's serves the rest
  const app = new Elysia({ serve: { routes: direct.serveRoutes as never } })
    .use(gateway(pipeline, ctx.config.maxBodyBytes))
    .use(openapiDocs(direct.openapiPaths))
    .use(pages())
    .use(authGuards(ctx.auth))
    .use(healthRoutes(ctx))
    .use(billingRoutes(ctx))
    .use(recommendationsRoutes(ctx))
    .use(aiRoutes(ctx))
    .use(usersRoutes(ctx))
    .use(apiKeysRoutes(ctx))
    .use(clientsRoutes(ctx))
    .use(invitationsRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(versionsRoutes(ctx))
    .use(devicesRoutes(ctx))
    .use(metricsRoutes(ctx))
  /** One request through the whole service, as the server dispatches it (for tests and in-process callers). */
  const handle = (request: Request): Promise<Response> => direct.match(request)?.(request, NO_PEER) ?? app.handle(request)
  return { app, ctx, handle, direct, requestsAdmitted: pipeline.admittedCount }
}

/** In-process requests come from no socket. */
const NO_PEER = { requestIP: () => null }

export type App = ReturnType<typeof createApp>['app']
