import { yieldToRequests } from '../lib/yield'
import { backupJobs } from './backups'
import type { AppContext, AppDeps } from '../context'
import { backupStats } from '../db/backup-schedule'
import type { Authenticator } from '../http/principal'
import type { Job } from '../jobs/scheduler'
import { createEventBus, type EventBus } from '../lib/event-bus'
import { systemResolver } from '../lib/outbound/outbound.fetch'
import { localAddresses } from '../lib/outbound/outbound.policy'
import { resolveSecretKey } from '../lib/secret-box'
import { runDueGenerations } from '../modules/ai/ai.jobs'
import { findPlan, freePlan, loadPlans, type Plan } from '../modules/billing/billing.catalog'
import type { AdminDeps } from '../modules/admin/admin.service'
import type { InstanceSettingsResponse } from '../modules/admin/admin.model'
import { signupPolicyOf } from '../modules/users/users.signup'
import type { Config } from '../config'
import { siteUrlWarning } from '../config.exposure'
import { activeKeyCount, apiKeyStats } from '../modules/api-keys/api-keys.service'
import { clientsPage, clientStats, getClient, setPlanAndLimits, toOperatorView } from '../modules/clients/clients.service'
import { deviceCount, deviceStats } from '../modules/devices/devices.service'
import { databaseStats } from '../modules/health/health.service'
import { userStats } from '../modules/users/users.service'
import { pruneBillingEvents } from '../modules/billing/billing.jobs'
import { memberRole, ownerEmail, seatsUsed } from '../modules/clients/members.service'
import { integrityCheck } from '../modules/health/health.jobs'
import { runRetention, runRollup } from '../modules/metrics/metrics.jobs'
import { metricsStats } from '../modules/metrics/metrics.service'
import { purgeOldRefreshTokens } from '../modules/users/users.sessions'
import { wireIdentity, type IdentityModules } from './identity'
import { wireFleet, type FleetModules } from './fleet'
import { wireMonitoring, type MonitoringModules } from './monitoring'
import { wireAlerts, wireChannels, type AlertingModules, type ChannelsModules } from './alerting'
import { enqueueNotification } from '../modules/channels/channels.delivery'
import { listChannels } from '../modules/channels/channels.service'
import { timedJobs, wireObservability } from './observability'
import { wireLive, type LiveModules } from './live'
import { createHooks, createLookups } from './hooks'
import { wireOverview } from './overview'
import { webhookJobs, wireWebhooks, type WebhookModules } from './webhooks'
import { wireContainers, type ContainerModules } from './containers'
import { pruneContainers } from '../modules/containers/containers.jobs'
import { pruneDisks } from '../modules/disks/disks.service'
import { alertOnChecks, checkJobs, wireChecks, type CheckModules } from './checks'
import { checksExposition } from '../modules/checks/checks.metrics'
import { followListedItems, wireStatusPages } from './status-pages'
import { wireStorage } from './storage'
import { storageJobs } from '../modules/storage/storage.jobs'
import type { StorageDeps } from '../modules/storage/storage.service'

/**
 * The composition root: every dependency is built here, once, and handed to the modules; every
 * scheduled job is registered here, in one list. Modules declare routes and services; they do
 * not build what they depend on.
 */
export function compose(deps: AppDeps) {
  const planList = deps.plans ?? loadPlans(deps.config.plansFile)
  const plans = () => planList
  // each group takes what the groups before it provide; none reaches back. What a group tells
  // later ones goes through the bus or a hook, both made first: every port is filled when its
  // group is built
  const events = createEventBus({ clock: deps.clock, peers: deps.peers })
  const hooks = createHooks()
  const lookups = createLookups()
  const identity = wireIdentity(deps, plans, lookups)
  const fleet = wireFleet(deps, plans, identity, { events, hooks, lookups })
  const ctx = createContext(deps, plans, identity, fleet, events)
  const monitoring = wireMonitoring(ctx, identity, fleet, hooks, { metricsSource: deps.metricsSource })
  const live = wireLive(ctx, fleet, monitoring, { hooks, lookups }, deps.timers)
  const channels = wireChannels(ctx, identity, { timers: deps.timers, mail: deps.mail, apiBase: deps.channelApiBase })
  // alert notices go to the channels' durable queue unless a test listens instead
  const notify = deps.notify ?? (async (clientId, channelIds, n) => (await enqueueNotification(channels.channels, clientId, channelIds, n)).length)
  const checks = wireChecks(ctx, identity, fleet, hooks, { timers: deps.timers, peers: deps.peers })
  const alerting = wireAlerts(ctx, identity, fleet, monitoring, hooks, {
    notify,
    channels: channelLookup(channels),
    subjects: checks.alertSubjects,
    peers: deps.peers,
  })
  alertOnChecks(checks, alerting, live)
  identity.health.convertingDevices = () => monitoring.sealer.behind()
  const containers = wireContainers(ctx, fleet, alerting, hooks)
  const overview = { ...wireOverview(ctx, fleet, monitoring, alerting), checksDown: (clientId: string) => checks.checkRows.downCount(clientId) }
  const webhooks = wireWebhooks(ctx, identity, fleet, { timers: deps.timers })
  const storage = wireStorage(ctx, monitoring, lookups)
  const admin = wireAdmin(ctx, plans, identity, fleet, monitoring, storage)
  const checkSeries = checksExposition(checks.checkRows)
  checks.onCheckChange(checkSeries.counted)
  const observability = { ...wireObservability(ctx, fleet, monitoring, hooks, containers, storage), sections: [checkSeries.write] }
  const statusPages = wireStatusPages(ctx, fleet, { checks: deps.statusChecks ?? checks.statusChecks, peers: deps.peers })
  followListedItems(statusPages, checks, hooks)
  const modules = {
    ...identity,
    ...fleet,
    ...monitoring,
    overview,
    ...live,
    ...channels,
    ...alerting,
    ...containers,
    ...webhooks,
    ...checks,
    admin,
    observability,
    ...statusPages,
    storage,
  }
  return { ctx, modules, hooks, lookups, jobs: timedJobs(jobList(ctx, modules), observability.registry, ctx.clock) }
}

export type Modules = ReturnType<typeof compose>['modules']

/** Which of these ids are not the client's channels: rules and routing name only channels that exist. */
function channelLookup(channels: ChannelsModules) {
  return {
    unknown: async (clientId: string, ids: string[]) => {
      const mine = new Set((await listChannels(channels.channels, clientId)).map((c) => c.id))
      return ids.filter((id) => !mine.has(id))
    },
  }
}

/**
 * Every scheduled job, named `<domain>.<what it does>`. Schedules are UTC; the daily ones run
 * at 03:17, off the hour when other machines' cron jobs start.
 */
function jobList(
  ctx: AppContext,
  modules: IdentityModules &
    FleetModules &
    MonitoringModules &
    LiveModules &
    AlertingModules &
    ContainerModules &
    WebhookModules &
    CheckModules & { storage: StorageDeps },
): Job[] {
  return [
    // just after the ingest grace period of each minute
    { name: 'metrics.rollup', cron: '35 * * * * *', run: () => runRollup(modules.metricsJobs) },
    { name: 'metrics.seal', cron: '5 * * * * *', run: () => modules.sealer.run({ leaveFilling: true }).then(() => undefined) },
    { name: 'metrics.retention', cron: '0 17 * * * *', run: () => runRetention(modules.metricsJobs).then(() => undefined) },
    { name: 'containers.rollup', cron: '40 * * * * *', run: () => modules.containerRollups.run().then(() => undefined) },
    {
      name: 'containers.retention',
      cron: '0 19 * * * *',
      run: async () => {
        await pruneContainers(modules.containerJobs)
        await pruneDisks(modules.disks, ctx.config.metricsRetention.raw)
      },
    },
    // each client's own cron pattern decides whether it is its turn
    // offline devices, durations without new samples, forecasts, repeats, delayed recoveries, grouped notices. Every
    // hub runs it on what it holds in memory; each transition is a conditional write one hub wins
    { name: 'alerts.evaluate', cron: '*/15 * * * * *', everyHub: true, run: () => modules.alertsTick() },
    { name: 'ai.recommendations', cron: '0 * * * * *', run: () => runDueGenerations(modules.ai).then(() => undefined) },
    // each hub's own heartbeat record
    { name: 'ai.hub-alive', cron: '30 * * * * *', everyHub: true, run: () => modules.ai.hubRuns?.beat() },
    { name: 'billing.prune-events', cron: '0 17 3 * * *', run: () => pruneBillingEvents(modules.billing) },
    { name: 'users.purge-refresh-tokens', cron: '0 17 3 * * *', run: async () => void (await purgeOldRefreshTokens(modules.users)) },
    // each device's status against its own interval; a change goes out on the live stream. Every hub
    // runs it: presence is kept in each hub's memory, from the samples it stores and hears of
    { name: 'devices.status', cron: '*/15 * * * * *', everyHub: true, run: () => modules.presence.sweep() },
    { name: 'health.integrity-check', cron: '0 23 * * * *', run: () => integrityCheck(modules.health) },
    ...webhookJobs(modules),
    ...checkJobs(modules),
    // the disk budget every minute, the space per tier hourly
    ...storageJobs(modules.storage),
    // VIGIL_BACKUP_SCHEDULE (daily at 03:47 by default); none when off
    ...backupJobs(ctx),
  ]
}

/**
 * The operator's views, after every group: they read every domain, each through its own
 * service functions. The stats list is the order of GET /v1/admin/stats' keys.
 */
function wireAdmin(
  ctx: AppContext,
  plans: () => Plan[],
  identity: IdentityModules,
  fleet: FleetModules,
  monitoring: MonitoringModules,
  storage: StorageDeps,
): AdminDeps {
  const { clients, users, health } = identity
  return {
    clients: {
      get: async (clientId) => toOperatorView(await getClient(clients, clientId)),
      page: async (limit, offset) => {
        const { rows, total } = await clientsPage(clients, limit, offset)
        return { rows: rows.map(toOperatorView), total }
      },
      seatsUsed: (clientId) => seatsUsed(clients, clientId),
      ownerEmail: (clientId) => ownerEmail(clients, clientId),
      setPlanAndLimits: async (clientId, changes) => toOperatorView(await setPlanAndLimits(clients, clientId, changes)),
    },
    usage: {
      devices: async (clientId) => deviceCount(fleet.devices, clientId),
      apiKeys: async (clientId) => activeKeyCount(fleet.apiKeys, clientId),
    },
    plans: { all: plans, find: (planId) => findPlan(plans(), planId), fallback: () => freePlan(plans()) },
    stats: [
      () => userStats(users),
      () => clientStats(clients),
      async () => deviceStats(fleet.devices),
      async () => apiKeyStats(fleet.apiKeys),
      // on SQLite the file and the metric files beside it, as /metrics counts them; PostgreSQL's size as read by the health check
      async () => (ctx.pg ? databaseStats(health) : { ...(await databaseStats(health)), database_bytes: await storage.store.fileBytes() }),
      () => metricsStats(monitoring.metrics),
      () => backupStats(ctx.db.backups),
    ],
    instance: instanceSettings(ctx.config),
    logger: ctx.logger,
  }
}

/** The operator's read-only view of the settings that shape the instance (changed in the environment, at restart). */
function instanceSettings(config: Config): InstanceSettingsResponse {
  const { mode, own } = config.instance
  return {
    mode,
    signup: signupPolicyOf(config.instance),
    signup_configured: config.instance.signup !== null,
    billing_configured: config.stripe.secretKey !== null,
    site_url: config.siteUrl,
    site_url_warning: siteUrlWarning(config),
    own_limits: mode === 'own' ? { max_devices: own.maxDevices, max_users: own.maxUsers, rate_limit: own.rateLimit } : null,
    outbound_allow_private: config.outbound.allowPrivate,
    ai_default_provider: config.ai.provider,
  }
}

/** The cross-cutting dependencies; the credential checks come from the identity and fleet modules. */
function createContext(deps: AppDeps, plans: () => Plan[], identity: IdentityModules, fleet: FleetModules, events: EventBus): AppContext {
  const auth: Authenticator = {
    verifyAccessToken: (token) => identity.users.tokens.verify(token),
    verifyApiKey: (key) => fleet.apiKeys.verifier.verify(key),
    rateLimitFor: (clientId) => identity.clients.limits.rateLimitFor(clientId),
    memberRole: (userId, clientId) => memberRole(identity.clients, userId, clientId),
  }
  return {
    config: deps.config,
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    fetch: deps.fetch ?? fetch,
    outbound: { fetch: deps.fetch ?? fetch, resolve: deps.resolve ?? systemResolver, selfAddresses: localAddresses(deps.config.host) },
    auth,
    plans,
    secretKey: resolveSecretKey(deps.secretKey, deps.config.secretKey, deps.logger),
    events,
    pg: deps.pg ?? null,
    bulkPause: deps.bulkPause ?? yieldToRequests,
  }
}
