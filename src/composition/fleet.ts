import type { AppDeps } from '../context'
import { createDeviceKeyInTransaction, revokeDeviceKeys, type ApiKeysDeps } from '../modules/api-keys/api-keys.service'
import { createApiKeysStore, sqliteApiKeys } from '../modules/api-keys/api-keys.store'
import type { EnrolmentsDeps } from '../modules/enrolments/enrolments.service'
import { createEnrolmentsStore, sqliteEnrolments } from '../modules/enrolments/enrolments.store'
import { hubPin } from './hub-pin'
import { hubExecutables } from '../modules/versions/versions.executables'
import { apiKeyVerifier } from '../modules/api-keys/api-keys.verifier'
import type { Plan } from '../modules/billing/billing.catalog'
import { subscriptionOf, type BillingDeps } from '../modules/billing/billing.service'
import { createBillingStore } from '../modules/billing/billing.store'
import { stripeClient } from '../modules/billing/billing.stripe'
import { fleetClientsOnSqlite } from '../modules/clients/clients.service'
import { deviceExists, registerDeviceInTransaction, type DevicesDeps } from '../modules/devices/devices.service'
import { createDevicesStore, sqliteDevices } from '../modules/devices/devices.store'
import type { EventBus } from '../lib/event-bus'
import type { Hooks, Lookups } from './hooks'
import type { IdentityModules } from './identity'
import type { Filled } from './ports'

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
  const sqlite = deps.db.sqlite
  const { clients } = identity
  const keysSqlite = sqliteApiKeys(sqlite)
  const keysStore = createApiKeysStore(keysSqlite)

  // devices and keys ask each other (a key's device must exist; a deleted device revokes its keys)
  const devicesSqlite = sqliteDevices(sqlite)
  const devices: Filled<DevicesDeps, 'events' | 'intervals' | 'seen'> = {
    store: createDevicesStore(devicesSqlite),
    sqlite: devicesSqlite,
    clock,
    // answered by the groups that know (metrics, presence), once they are built
    intervals: lookups.deviceIntervals.ask,
    seen: lookups.deviceLastSeen.ask,
    events: { registered: hooks.deviceRegistered.call, deleted: hooks.deviceDeleted.call },
    clients: { maxDevices: (clientId) => fleetClientsOnSqlite(sqlite, clients).maxDevices(clientId) },
    keys: { revokeForDevice: (clientId, deviceId) => revokeDeviceKeys(apiKeys, clientId, deviceId) },
  }
  const apiKeys: ApiKeysDeps = {
    store: keysStore,
    sqlite: keysSqlite,
    clock,
    logger,
    // cached principals for the hot path
    verifier: apiKeyVerifier(keysStore, clock, deps.peers),
    devices: { exists: (clientId, deviceId) => deviceExists(devices, clientId, deviceId) },
  }

  // the install one-liner: a token spent for a device and a key bound to it, in one transaction
  const enrolmentsSqlite = sqliteEnrolments(sqlite)
  const enrolments: EnrolmentsDeps = {
    store: createEnrolmentsStore(enrolmentsSqlite),
    sqlite: enrolmentsSqlite,
    clock,
    logger,
    devices: { register: (clientId, facts) => registerDeviceInTransaction(devices, { clientId, deviceId: null }, facts).device.device_id },
    keys: {
      createBound: (clientId, deviceId, name) => {
        const key = createDeviceKeyInTransaction(apiKeys, clientId, deviceId, name)
        return { key_id: key.key_id, api_key: key.api_key! }
      },
    },
    pin: hubPin(config.tlsCert, logger),
    install: () => hubExecutables(config).install(),
  }

  const billing: Filled<BillingDeps, 'subscriptionUpdated'> = {
    store: createBillingStore(deps.db),
    clock,
    logger,
    config,
    plans,
    stripe: deps.stripe !== undefined ? deps.stripe : stripeClient(config.stripe),
    clients: fleetClientsOnSqlite(sqlite, clients),
    // where subscription.updated is born: the bus carries it to webhooks and the live stream
    subscriptionUpdated: (clientId) =>
      void events.publish(clientId, 'subscription.updated', {
        subscription: subscriptionOf(billing, clientId),
        plan_type: billing.clients.find(clientId)?.plan_type ?? null,
      }),
  }

  return { devices, apiKeys, enrolments, billing }
}

export type FleetModules = ReturnType<typeof wireFleet>
