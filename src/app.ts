import { Elysia } from 'elysia'
import type { AppContext, AppDeps } from './context'
import { gateway } from './http/gateway'
import { authGuards } from './http/auth'
import { openapiDocs } from './http/openapi'
import { pages } from './http/pages'
import { memoryRateLimiter } from './http/rate-limiter'
import type { Authenticator } from './http/principal'
import { DEFAULT_PLANS } from './modules/billing/billing.catalog'
import { accessTokens } from './modules/users/users.tokens'
import { apiKeyVerifier } from './modules/api-keys/api-keys.verifier'
import { clientLimits, memberRoles } from './modules/clients/clients.limits'
import { healthRoutes } from './modules/health/health.routes'
import { devicesRoutes } from './modules/devices/devices.routes'
import { metricsRoutes } from './modules/metrics/metrics.routes'

export function createContext(deps: AppDeps): AppContext {
  const plans = deps.plans ?? DEFAULT_PLANS
  return {
    config: deps.config,
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    fetch: deps.fetch ?? fetch,
    startedAt: deps.clock.now(),
    tokens: accessTokens(deps.jwtSecret, deps.clock),
    apiKeys: apiKeyVerifier(deps.db.sqlite, deps.clock),
    limits: clientLimits(deps.db.sqlite, () => plans, deps.config.rateLimits),
    plans: () => plans,
    jobs: [],
  }
}

/** The whole HTTP service: cross-cutting plugins first, in order, then one module per domain. */
export function createApp(deps: AppDeps) {
  const ctx = createContext(deps)
  const auth: Authenticator = {
    verifyAccessToken: (token) => ctx.tokens.verify(token),
    verifyApiKey: (key) => ctx.apiKeys.verify(key),
    rateLimitFor: (clientId) => ctx.limits.rateLimitFor(clientId),
    memberRole: memberRoles(ctx.db.sqlite),
  }
  const app = new Elysia()
    .use(gateway({ config: ctx.config, clock: ctx.clock, logger: ctx.logger, limiter: deps.limiter ?? memoryRateLimiter(), auth }))
    .use(openapiDocs())
    .use(pages())
    .use(authGuards(auth))
    .use(healthRoutes(ctx))
    .use(devicesRoutes(ctx))
    .use(metricsRoutes(ctx))
  return { app, ctx }
}

export type App = ReturnType<typeof createApp>['app']
