import { Elysia } from 'elysia'
import type { AppContext, AppDeps } from './context'
import { gateway } from './http/gateway'
import { authGuards } from './http/auth'
import { openapiDocs } from './http/openapi'
import { pages } from './http/pages'
import { memoryRateLimiter } from './http/rate-limiter'
import type { Authenticator } from './http/principal'
import { DEFAULT_PLANS } from './modules/billing/billing.catalog'
import { accessTokens, currentRoles } from './modules/users/users.tokens'
import { DEFAULT_PASSWORD_COST } from './modules/users/users.passwords'
import { usersRoutes } from './modules/users/users.routes'
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes'
import { clientsRoutes } from './modules/clients/clients.routes'
import { adminRoutes } from './modules/admin/admin.routes'
import { versionsRoutes } from './modules/versions/versions.routes'
import { apiKeyVerifier } from './modules/api-keys/api-keys.verifier'
import { clientLimits } from './modules/clients/clients.limits'
import { authenticatorOf } from './http/guards'
import { healthRoutes } from './modules/health/health.routes'

export function createContext(deps: AppDeps): AppContext {
  const plans = deps.plans ?? DEFAULT_PLANS
  return {
    config: deps.config,
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    fetch: deps.fetch ?? fetch,
    startedAt: deps.clock.now(),
    tokens: accessTokens(deps.jwtSecret, deps.clock, currentRoles(deps.db.sqlite)),
    apiKeys: apiKeyVerifier(deps.db.sqlite, deps.clock),
    limits: clientLimits(deps.db.sqlite, () => plans, deps.config.rateLimits),
    plans: () => plans,
    jobs: [],
    passwordCost: deps.passwordCost ?? DEFAULT_PASSWORD_COST,
    statProviders: [],
  }
}

/** The whole HTTP service: cross-cutting plugins first, in order, then one module per domain. */
export function createApp(deps: AppDeps) {
  const ctx = createContext(deps)
  const auth: Authenticator = authenticatorOf(ctx)
  const app = new Elysia()
    .use(gateway({ config: ctx.config, clock: ctx.clock, logger: ctx.logger, limiter: deps.limiter ?? memoryRateLimiter(), auth }))
    .use(openapiDocs())
    .use(pages())
    .use(authGuards(auth))
    .use(healthRoutes(ctx))
    .use(usersRoutes(ctx))
    .use(apiKeysRoutes(ctx))
    .use(clientsRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(versionsRoutes(ctx))
  return { app, ctx }
}

export type App = ReturnType<typeof createApp>['app']
