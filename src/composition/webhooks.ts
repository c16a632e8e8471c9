import type { AppContext } from '../context'
import type { Job } from '../jobs/scheduler'
import type { OutboundPolicy } from '../lib/outbound/outbound.policy'
import { systemTimers, type Timers } from '../lib/timers'
import { findDevice } from '../modules/devices/devices.service'
import { createSendNowLimit } from '../modules/deliveries/deliveries.limit'
import { pruneDeliveries } from '../modules/webhooks/webhooks.deliveries'
import { sqliteClaims } from '../modules/deliveries/deliveries.claim'
import { pgClaims, pgDueClaims } from '../modules/deliveries/deliveries.due.pg'
import { PG_QUEUES } from '../modules/deliveries/deliveries.claim.pg'
import { createOutboxListener } from '../modules/webhooks/webhooks.listener'
import { createOutboxStore, webhookClaimSource } from '../modules/webhooks/webhooks.outbox'
import { createOutboxStorePg } from '../modules/webhooks/webhooks.outbox.pg'
import { disableEndpoint, type EndpointDisabledNotice, type WebhooksDeps } from '../modules/webhooks/webhooks.service'
import { createEndpointsStore } from '../modules/webhooks/webhooks.store'
import { createEndpointsStorePg } from '../modules/webhooks/webhooks.store.pg'
import { createWebhookWorker, type WorkerDeps, webhookJob } from '../modules/webhooks/webhooks.worker'
import { onEngine } from './engine'
import type { FleetModules } from './fleet'
import type { IdentityModules } from './identity'

/** What a test or the bench may set for the delivery worker. */
export interface WebhookOverrides {
  timers?: Timers
  random?: () => number
}

/** how long one delivery may take, connection to last byte read */
const DELIVERY_TIMEOUT_MS = 15_000
/** webhook endpoints one account may have */
const MAX_ENDPOINTS = 20
/**
 * Deliveries in flight: 64 in all, 16 per account, 8 per endpoint. An account whose receivers
 * never answer holds at most its 16 slots for the deadline; everyone else's go out beside it.
 */
const DELIVERY_CAPS = { total: 64, perAccount: 16, perDestination: 8 }
/** an endpoint whose every delivery failed for this long is disabled */
const DISABLE_AFTER_MS = 5 * 86400_000

/**
 * Outbound webhooks: the endpoints, the outbox the bus listener writes, and the delivery worker
 * (started by `serve`, not here: tests and tools build the app without sending anything).
 * Stored recommendations and applied subscriptions are published on the bus where they are
 * born (wireMonitoring, wireFleet); the listener hears them there.
 */
export function wireWebhooks(ctx: AppContext, identity: IdentityModules, fleet: FleetModules, overrides: WebhookOverrides = {}) {
  const endpoints = onEngine(ctx, createEndpointsStore, createEndpointsStorePg)
  const outbox = onEngine(ctx, createOutboxStore, createOutboxStorePg)
  // one hub on SQLite claims in its process; hubs on PostgreSQL claim with leases, so none sends a delivery another sends
  const claiming = onEngine<Pick<WorkerDeps, 'claims' | 'unclaimAtStart'>>(
    ctx,
    (sqlite) => {
      const source = webhookClaimSource(sqlite)
      const take = (id: string) => {
        const d = source.take(id)
        return d && webhookJob(d)
      }
      const transaction = sqlite.transaction(<T>(fn: () => T) => fn()) as <T>(fn: () => T) => T
      return { claims: sqliteClaims({ ...source, take }, transaction), unclaimAtStart: true }
    },
    (sql) => ({
      claims: pgClaims(pgDueClaims(sql, PG_QUEUES.webhooks), async (claimed) => (await outbox.claimedIn(claimed.map((c) => c.id))).map(webhookJob)),
      unclaimAtStart: false,
    }),
  )
  const { allowPrivate, allowLocal = false } = ctx.config.outbound
  // asked on every delivery: whether a client is the operator's changes rarely, so it is read once a minute
  const operatorClient = new Map<string, { value: boolean; at: number }>()
  const isOperator = (clientId: string) => {
    const now = ctx.clock.now()
    let hit = operatorClient.get(clientId)
    if (!hit || now - hit.at > 60_000) operatorClient.set(clientId, (hit = { value: identity.directory.isOperatorClient(clientId), at: now }))
    return hit.value
  }
  const policyFor = (clientId: string): OutboundPolicy => ({ allowPrivate: allowPrivate || isOperator(clientId), allowLocal })

  const listener = createOutboxListener({
    outbox,
    clock: ctx.clock,
    logger: ctx.logger,
    deviceName: (clientId, deviceId) => findDevice(fleet.devices, clientId, deviceId)?.hostname ?? null,
    wake: (account, destinations) => worker.wake({ account, destinations }),
  })
  const webhooks: WebhooksDeps = {
    endpoints,
    outbox,
    clock: ctx.clock,
    logger: ctx.logger,
    secretKey: ctx.secretKey,
    selfAddresses: ctx.outbound.selfAddresses,
    policyFor,
    isOperator,
    wake: (account, destinations) => worker.wake({ account, destinations }),
    // no e-mail on this instance yet: the owners hear it as an event (their other endpoints, the live stream) and the log has it
    notifyDisabled: (clientId, notice: EndpointDisabledNotice) => void ctx.events.publish(clientId, 'endpoint.disabled', notice),
    maxEndpoints: MAX_ENDPOINTS,
    sendNow: createSendNowLimit(ctx.clock),
  }
  const worker = createWebhookWorker({
    outbox,
    ...claiming,
    clock: ctx.clock,
    timers: overrides.timers ?? systemTimers,
    logger: ctx.logger,
    outbound: ctx.outbound,
    secretKey: ctx.secretKey,
    policyFor,
    isOperator,
    disable: (clientId, endpointId, reason) => disableEndpoint(webhooks, clientId, endpointId, reason),
    caps: DELIVERY_CAPS,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    disableAfterMs: DISABLE_AFTER_MS,
    random: overrides.random,
  })
  ctx.events.subscribeAll(listener.listener)

  return { webhooks, webhookWorker: worker, webhookEvents: { settled: listener.settled } }
}

export type WebhookModules = ReturnType<typeof wireWebhooks>

/** Finished deliveries are kept 30 days. */
export const webhookJobs = (modules: WebhookModules): Job[] => [
  {
    name: 'webhooks.prune-deliveries',
    cron: '0 37 3 * * *',
    run: async () => {
      await pruneDeliveries(modules.webhooks)
    },
  },
]
