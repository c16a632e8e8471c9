import type { DbHandle } from '../../db/connection'
import { AppError, notFound } from '../../http/errors'
import type { Clock } from '../../lib/clock'
import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { revokeDeviceKeys } from '../api-keys/api-keys.service'
import { ONLINE_WINDOW_MS, type DeviceRegister, type DeviceResponse } from './devices.model'
import { deviceStore, type DeviceRef, type DeviceRow } from './devices.store'

export interface DeviceDeps {
  db: DbHandle
  clock: Clock
}

/** The caller registering a device: its client and, for a bound key, the one device it may act for. */
export interface DeviceCaller {
  clientId: string
  deviceId: string | null
}

export function toDeviceResponse(row: DeviceRow, now: number): DeviceResponse {
  return {
    device_id: row.id,
    client_id: row.client_id,
    fingerprint: row.fingerprint,
    hostname: row.hostname,
    os: row.os,
    os_version: row.os_version,
    arch: row.arch,
    mac_address: row.mac_address,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    last_seen_at: row.last_seen_at === null ? null : toIso(row.last_seen_at),
    status: row.last_seen_at !== null && now - row.last_seen_at <= ONLINE_WINDOW_MS ? 'online' : 'offline',
  }
}

const limitMessage = (max: number) =>
  `This account may register at most ${max} device${max === 1 ? '' : 's'}. To raise the limit, upgrade the plan ` +
  `(POST /v1/billing/checkout), or ask the instance operator to set max_devices with PATCH /v1/admin/clients/{client_id}.`

/**
 * Registers a device, or updates the one with the same fingerprint (a collector re-registers on
 * every start). The limit check and the insert share one IMMEDIATE transaction, so concurrent
 * registrations can never overshoot max_devices.
 */
export function registerDevice(deps: DeviceDeps, caller: DeviceCaller, body: DeviceRegister): { device: DeviceResponse; created: boolean } {
  const store = deviceStore(deps.db.sqlite)
  const { q } = store
  const now = deps.clock.now()
  const mac = body.mac_address ?? null
  const result = deps.db.sqlite
    .transaction(() => {
      const existing = q.byFingerprint.get(caller.clientId, body.fingerprint)
      if (caller.deviceId && existing?.id !== caller.deviceId) {
        throw new AppError('device_mismatch', 'This API key is bound to another device and cannot register a new one')
      }
      if (existing) {
        q.update.run(body.hostname, body.os, body.os_version, body.arch, mac, now, existing.id)
        return { id: existing.id, created: false }
      }
      const max = q.maxDevices.get(caller.clientId)?.max_devices ?? 1
      if (q.count.get(caller.clientId)!.n >= max) throw new AppError('device_limit_reached', limitMessage(max))
      const id = newId('dev')
      const seq = store.nextSeq()
      q.insert.run(id, caller.clientId, body.fingerprint, body.hostname, body.os, body.os_version, body.arch, mac, now, now, seq)
      return { id, created: true }
    })
    .immediate()
  if (result.created) store.forget(caller.clientId)
  return { device: toDeviceResponse(q.byId.get(result.id, caller.clientId)!, now), created: result.created }
}

export function listDevices(deps: DeviceDeps, clientId: string): DeviceResponse[] {
  const now = deps.clock.now()
  return deviceStore(deps.db.sqlite).q.list.all(clientId).map((r) => toDeviceResponse(r, now))
}

/** A device of this client (with last_seen_at and status); 404 for unknown ids and other tenants' devices. */
export function getDevice(deps: DeviceDeps, clientId: string, deviceId: string): DeviceResponse {
  const row = deviceStore(deps.db.sqlite).q.byId.get(deviceId, clientId)
  if (!row) throw notFound('Device')
  return toDeviceResponse(row, deps.clock.now())
}

/** A device row of this client, or null: for domains that need its facts (hostname, last_seen_at). */
export function findDevice(deps: DeviceDeps, clientId: string, deviceId: string): DeviceRow | null {
  return deviceStore(deps.db.sqlite).q.byId.get(deviceId, clientId)
}

export function deviceIdsOf(deps: DeviceDeps, clientId: string): string[] {
  return listDevices(deps, clientId).map((d) => d.device_id)
}

/**
 * Deletes a device; its metrics (every tier) and recommendations go with it by ON DELETE CASCADE,
 * and the API keys bound to it are revoked in the same transaction. Returns the revoked key ids.
 */
export function deleteDevice(deps: DeviceDeps, clientId: string, deviceId: string): string[] {
  const store = deviceStore(deps.db.sqlite)
  const revoked = deps.db.sqlite
    .transaction(() => {
      if (!store.q.byId.get(deviceId, clientId)) throw notFound('Device')
      const keys = revokeDeviceKeys({ sqlite: deps.db.sqlite, clock: deps.clock }, clientId, deviceId)
      store.q.remove.run(deviceId, clientId)
      return keys
    })
    .immediate()
  store.forget(clientId, deviceId)
  return revoked
}

/**
 * Which device a metric belongs to: the key's bound device; else the one named (x-device-id
 * header or device_id field); else the client's only device; else 422 device_required.
 * A device of another client is 404; a bound key naming another device is 403.
 */
export function resolveDevice(deps: DeviceDeps, key: DeviceCaller, named: string | null | undefined): DeviceRef {
  const store = deviceStore(deps.db.sqlite)
  if (key.deviceId) {
    if (named && named !== key.deviceId) throw new AppError('device_mismatch', 'This API key is bound to another device')
    const ref = store.ref(key.clientId, key.deviceId)
    if (!ref) throw notFound('Device')
    return ref
  }
  if (named) {
    const ref = store.ref(key.clientId, named)
    if (!ref) throw notFound('Device')
    return ref
  }
  const only = store.onlyDevice(key.clientId)
  if (!only) {
    throw new AppError('device_required', 'Name the device: send the x-device-id header or a device_id field (the account has no single device to default to)', 'device_id')
  }
  return only
}

/** A device of this client for portal reads (metrics history, summary): 404 otherwise. */
export function deviceRef(deps: DeviceDeps, clientId: string, deviceId: string): DeviceRef {
  const ref = deviceStore(deps.db.sqlite).ref(clientId, deviceId)
  if (!ref) throw notFound('Device')
  return ref
}
