import type { AppDeps } from '../context'
import { forgetRevokedKeys, prepareDeviceKey, type ApiKeysDeps } from '../modules/api-keys/api-keys.service'
import { createApiKeysStore, sqliteApiKeys } from '../modules/api-keys/api-keys.store'
import { createApiKeysStorePg } from '../modules/api-keys/api-keys.store.pg'
import { createDisksStore } from '../modules/disks/disks.store'
import { createDisksStorePg } from '../modules/disks/disks.store.pg'
import type { EnrolmentsDeps } from '../modules/enrolments/enrolments.service'
import { createEnrolmentsStore, sqliteEnrolments } from '../modules/enrolments/enrolments.store'
import { createEnrolmentsStorePg } from '../modules/enrolments/enrolments.store.pg'
import { createVersionsStore } from '../modules/versions/versions.store'
import { createVersionsStorePg } from '../modules/versions/versions.store.pg'
import { onEngine } from './engine'
import { hubPin } from './hub-pin'
import { hubExecutables } from '../modules/versions/versions.executables'
import { apiKeyVerifier } from '../modules/api-keys/api-keys.verifier'
import type { Plan } from '../modules/billing/billing.catalog'
import { subscriptionOf, type BillingDeps } from '../modules/billing/billing.service'
import { createBillingStore } from '../modules/billing/billing.store'
import { createBillingStorePg } from '../modules/billing/billing.store.pg'
import { stripeClient } from '../modules/billing/billing.stripe'
import { applyBillingPlan, findClient, maxDevicesOf } from '../modules/clients/clients.service'
import { deviceExists, deviceRegistered, refusal, registration, type DevicesDeps } from '../modules/devices/devices.service'
import { createDevicesStore, sqliteDevices } from '../modules/devices/devices.store'
import { createDevicesStorePg } from '../modules/devices/devices.store.pg'
import { pgDeviceDirectory, sqliteDeviceDirectory } from '../modules/devices/devices.directory'
import type { EventBus } from '../lib/event-bus'
import type { Hooks, Lookups } from './hooks'
import type { IdentityModules } from './identity'
import type { Filled } from './ports'

/** The collector versions' store on the hub's engine (built with the identity group, which serves them). */
export const versionsStoreOn = (deps: Pick<AppDeps, 'db' | 'pg'>) => onEngine(deps, createVersionsStore, createVersionsStorePg)

/** The S.M.A.R.T. disks' store on the hub's engine (built with the containers group, which ingests them). */
export const disksStoreOn = (deps: Pick<AppDeps, 'db' | 'pg'>) => onEngine(deps, createDisksStore, createDisksStorePg)

/**
 * Devices, API keys and billing: what a tenant runs and pays for. Built before the context, whose
 * Authenticator checks API keys with the verifier made here.
 */
export function wireFleet(
  deps: AppDeps,
  plans: () => Plan[],
  identity: IdentityModules,
  { events, hooks, lookups }: { events: EventBus; hooks: Hooks; lookups: Lookups },
) {
  const { config, clock, logger } = deps
  const { clients } = identity
  const keysStore = onEngine(deps, (db) => createApiKeysStore(sqliteApiKeys(db)), createApiKeysStorePg)

  // devices and keys ask each other (a key's device must exist; a deleted device revokes its keys)
  const devicesStore = onEngine(deps, (db) => createDevicesStore(sqliteDevices(db)), createDevicesStorePg)
  const devices: Filled<DevicesDeps, 'events' | 'intervals' | 'seen'> = {
    store: devicesStore,
    // the other domains' synchronous reads: SQLite's statements, or this hub's copy of the devices
    directory: onEngine(
      deps,
      (db) => sqliteDeviceDirectory(sqliteDevices(db)),
      (sql) => pgDeviceDirectory({ sql, store: devicesStore, peers: deps.peers, logger }),
    ),
    clock,
    // answered by the groups that know (metrics, presence), once they are built
    intervals: lookups.deviceIntervals.ask,
    seen: lookups.deviceLastSeen.ask,
    events: { registered: hooks.deviceRegistered.call, deleted: hooks.deviceDeleted.call },
    clients: { maxDevices: (clientId) => maxDevicesOf(clients, clientId) },
    keys: { revoked: (keyIds) => forgetRevokedKeys(apiKeys, keyIds) },
  }
  const apiKeys: ApiKeysDeps = {
    store: keysStore,
    clock,
    logger,
    // cached principals for the hot path
    verifier: apiKeyVerifier(keysStore, clock, deps.peers),
    devices: { exists: (clientId, deviceId) => deviceExists(devices, clientId, deviceId) },
  }

  // the install one-liner: a token spent for a device and a key bound to it, in one store call
  const enrolments: EnrolmentsDeps = {
    store: onEngine(deps, (db) => createEnrolmentsStore(sqliteEnrolments(db)), createEnrolmentsStorePg),
    clock,
    logger,
    devices: {
      registration: (clientId, facts) => registration(devices, { clientId, deviceId: null }, facts),
      refused: (reason, max) => refusal({ refused: reason }, max),
      registered: (clientId, deviceId, created) => deviceRegistered(devices, clientId, deviceId, created),
    },
    keys: { prepareBound: (name) => prepareDeviceKey(apiKeys, name) },
    pin: hubPin(config.tlsCert, logger),
    install: () => hubExecutables(config).install(),
  }

  const billing: Filled<BillingDeps, 'subscriptionUpdated'> = {
    store: onEngine(deps, () => createBillingStore(deps.db), createBillingStorePg),
    clock,
    logger,
    config,
    plans,
    stripe: deps.stripe !== undefined ? deps.stripe : stripeClient(config.stripe),
    clients: {
      find: (clientId) => findClient(clients, clientId),
      applyPlan: (clientId, plan) => applyBillingPlan(clients, clientId, plan),
    },
    // where subscription.updated is born: the bus carries it to webhooks and the live stream
    // (the change is committed already: a failed read costs the event, not the request)
    subscriptionUpdated: async (clientId) => {
      try {
        const [subscription, client] = await Promise.all([subscriptionOf(billing, clientId), billing.clients.find(clientId)])
        void events.publish(clientId, 'subscription.updated', { subscription, plan_type: client?.plan_type ?? null })
      } catch (err) {
        logger.error('subscription.updated not published', { client_id: clientId, error: (err as Error).message })
      }
    },
  }

  return { devices, apiKeys, enrolments, billing }
}

export type FleetModules = ReturnType<typeof wireFleet>
