import { Elysia } from 'elysia'
import './lib/date-time' // the strict date-time format, for every schema
import type { AppDeps } from './context'
import { compose } from './composition'
import { gateway } from './http/gateway'
import { authGuards } from './http/auth'
import { openapiDocs } from './http/openapi'
import { pages } from './http/pages'
import { portal } from './http/portal'
import { downloads, IS_COMPILED } from './http/downloads'
import { selectRateLimiter } from './http/rate-limiter.select'
import { systemTimers } from './lib/timers'
import { requestPipeline } from './http/pipeline'
import { directRoutes } from './http/direct-routes'
import { billingRoutes } from './modules/billing/billing.routes'
import { usersRoutes } from './modules/users/users.routes'
import { sessionRoutes } from './modules/users/users.sessions.routes'
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes'
import { clientsRoutes } from './modules/clients/clients.routes'
import { invitationsRoutes } from './modules/clients/invitations.routes'
import { adminRoutes } from './modules/admin/admin.routes'
import { storageRoutes } from './modules/storage/storage.routes'
import { versionsRoutes } from './modules/versions/versions.routes'
import { healthRoutes } from './modules/health/health.routes'
import { recommendationsRoutes } from './modules/recommendations/recommendations.routes'
import { aiRoutes } from './modules/ai/ai.routes'
import { devicesRoutes } from './modules/devices/devices.routes'
import { knownDeviceFirst } from './modules/devices/devices.service'
import { enrolmentsRoutes } from './modules/enrolments/enrolments.routes'
import { metricsIngestRoutes, metricsRoutes } from './modules/metrics/metrics.routes'
import { observabilityRoutes } from './modules/observability/observability.routes'
import { overviewRoutes } from './modules/overview/overview.routes'
import { channelsRoutes } from './modules/channels/channels.routes'
import { liveRoutes } from './modules/live/live.routes'
import { alertsRoutes } from './modules/alerts/alerts.routes'
import { webhooksRoutes } from './modules/webhooks/webhooks.routes'
import { containersRoutes } from './modules/containers/containers.routes'
import { disksRoutes } from './modules/disks/disks.routes'
import { agentChecksRoutes, checksRoutes, heartbeatRoutes } from './modules/checks/checks.routes'
import { statusPagesRoutes } from './modules/status-pages/status-pages.routes'
import { STATUS_JSON_PATHS, statusPublicRoutes } from './modules/status-pages/status-pages.public-routes'

/** The whole HTTP service: cross-cutting plugins first, in order, then one module per domain. */
export function createApp(deps: AppDeps) {
  const { ctx, modules, jobs } = compose(deps)
  const { registry } = modules.observability
  // latency on the monotonic clock: the injected clock is wall time (and stands still in tests)
  const observer = { now: () => performance.now() / 1000, request: registry.request, rateLimited: registry.rateLimited }
  // a hub on PostgreSQL shares the buckets there unless Redis is named
  const limiter =
    deps.limiter ??
    selectRateLimiter({
      redisUrl: ctx.config.redisUrl,
      databaseUrl: ctx.pg ? ctx.config.database.url : null,
      logger: ctx.logger,
      timers: deps.timers ?? systemTimers,
      onFallback: registry.rateLimitFallback,
    })
  const pipeline = requestPipeline({
    config: ctx.config,
    clock: ctx.clock,
    logger: ctx.logger,
    limiter,
    auth: ctx.auth,
    storage: ctx.db.health,
    observer,
    timers: deps.timers,
  })
  const direct = directRoutes(pipeline, ctx.config.maxBodyBytes, knownDeviceFirst(modules.devices, metricsIngestRoutes(modules.metrics)))
  // Bun's router serves the direct routes; Elysia's serves the rest.
  // The portal's hashed files are served by Bun's router, outside the request pipeline: static
  // bytes from memory, not a share of the caller's rate limit (one page load fetches several)
  const web = portal()
  const app = new Elysia({ serve: { routes: { ...direct.serveRoutes, '/app/*': { GET: web.asset } } } })
    .use(gateway(pipeline, ctx.config.maxBodyBytes))
    .use(openapiDocs({ ...direct.openapiPaths, ...STATUS_JSON_PATHS }))
    .use(statusPublicRoutes(modules.statusPublic)) // before the landing page: a custom domain's "/" is its status page
    .use(pages())
    .use(
      downloads({
        dataDir: ctx.config.dataDir,
        tlsCert: ctx.config.tlsCert,
        execPath: process.execPath,
        platform: { os: process.platform, arch: process.arch },
        compiled: IS_COMPILED,
        configured: ctx.config.agentExecutable,
        log: ctx.logger,
      }),
    )
    .use(authGuards(ctx.auth))
    .use(healthRoutes(modules.health))
    .use(billingRoutes(modules.billing, ctx.auth))
    .use(recommendationsRoutes(modules.recommendations, ctx.auth))
    .use(aiRoutes(modules.ai, ctx.auth))
    .use(usersRoutes(modules.users, ctx.auth))
    .use(sessionRoutes(modules.users, ctx.auth, { siteUrl: ctx.config.siteUrl, tls: !!ctx.config.tlsCert, trustProxy: ctx.config.trustProxy }))
    .use(apiKeysRoutes(modules.apiKeys, ctx.auth))
    .use(clientsRoutes(modules.clients, ctx.auth))
    .use(invitationsRoutes(modules.clients, ctx.auth))
    .use(adminRoutes(modules.admin, ctx.auth))
    .use(storageRoutes(modules.storage, ctx.auth))
    .use(versionsRoutes(modules.versions, ctx.auth))
    .use(devicesRoutes(modules.devices, ctx.auth))
    .use(overviewRoutes(modules.overview, ctx.auth))
    .use(enrolmentsRoutes(modules.enrolments, ctx.auth))
    .use(metricsRoutes(modules.metrics, ctx.auth))
    .use(containersRoutes(modules.containers, ctx.auth))
    .use(disksRoutes(modules.disks, ctx.auth))
    .use(channelsRoutes(modules.channels, ctx.auth, ctx.config.siteUrl))
    .use(alertsRoutes(modules.alerts, ctx.auth))
    .use(webhooksRoutes(modules.webhooks, ctx.auth))
    .use(checksRoutes(modules.checks, ctx.auth))
    .use(heartbeatRoutes(modules.checks))
    .use(statusPagesRoutes(modules.statusPages, ctx.auth))
    .use(agentChecksRoutes(modules.checks, ctx.auth))
    .use(observabilityRoutes(modules.observability))
    .use(liveRoutes(modules.live, ctx.auth))
    .use(web.plugin) // last: its catch-all gives unknown non-API paths the portal's shell
  /** One request through the whole service, as the server dispatches it (for tests and in-process callers). */
  const handle = (request: Request): Promise<Response> =>
    direct.match(request)?.(request, NO_PEER) ?? (new URL(request.url).pathname.startsWith('/app/') ? web.asset(request) : app.handle(request))
  return { app, ctx, modules, jobs, handle, direct, web, limiter, requestsAdmitted: pipeline.admittedCount }
}

/** In-process requests come from no socket. */
const NO_PEER = { requestIP: () => null }

export type App = ReturnType<typeof createApp>['app']
