import { AppError, notFound } from '../../http/errors'
import { toIso, type Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { DevicePatch, DeviceRegister, DeviceResponse } from './devices.model'
import { deviceStatus } from './devices.status'
import type { DeviceDirectory } from './devices.directory'
import type { DeviceRef, DeviceRegistration, DeviceRow, DevicesStore, Registered } from './devices.store'

export interface DevicesDeps {
  /** the devices' own reads and writes (the routes), on either engine */
  store: DevicesStore
  /**
   * the devices read synchronously, for the callers that cannot await: the metrics' ports and
   * the other domains' synchronous ports (SQLite's statements, or this hub's copy on PostgreSQL)
   */
  directory: DeviceDirectory
  clock: Clock
  clients: DeviceLimits
  keys: DeviceKeys
  /** told after a device is made or removed (the live stream); filled by the composition root */
  events: DeviceEvents
  /**
   * each device's reporting interval in ms by its seq (null: not known yet), as the metrics
   * measure it: the one the fleet overview and the live stream use, so a device's `status`
   * reads the same everywhere. Filled by the composition root.
   */
  intervals: (seqs: number[]) => Map<number, number | null>
  /**
   * when this process last saw the device report (null: not since start): the stored
   * last_seen_at is written at most every few seconds, which is longer than a fast device's interval
   */
  seen: (deviceId: string) => number | null
}

/** The device's last report: the newer of the stored one and the one this process saw. */
function lastSeenOf(deps: Pick<DevicesDeps, 'seen'>, row: Pick<DeviceRow, 'id' | 'last_seen_at'>): number | null {
  const seen = deps.seen(row.id)
  if (seen === null) return row.last_seen_at
  return row.last_seen_at === null ? seen : Math.max(seen, row.last_seen_at)
}

/** Who hears of devices coming and going, after the change is committed. */
export interface DeviceEvents {
  registered(clientId: string, device: DeviceResponse): void
  deleted(clientId: string, deviceId: string): void
}

/** What devices need of the clients domain. Asked before a registration, which applies it if the device is new. */
export interface DeviceLimits {
  maxDevices(clientId: string): number | Promise<number>
}

/** What devices need of the API keys domain, once a delete has revoked a device's keys in its transaction. */
export interface DeviceKeys {
  /** drops the revoked keys' cached principals, on this hub and on the others */
  revoked(keyIds: string[]): void
}

/** The caller registering a device: its client and, for a bound key, the one device it may act for. */
export interface DeviceCaller {
  clientId: string
  deviceId: string | null
}

/** A device row as the API answers it, last seen at `lastSeen` and reporting every `intervalMs` (null: not known). */
export function toDeviceResponse(row: DeviceRow, now: number, lastSeen: number | null, intervalMs: number | null): DeviceResponse {
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
    last_seen_at: lastSeen === null ? null : toIso(lastSeen),
    status: deviceStatus(lastSeen, intervalMs, now),
    name: row.name,
    tags: parseTags(row.tags),
  }
}

/** Each row as answered, the intervals read at once for all of them. */
function responses(deps: Pick<DevicesDeps, 'intervals' | 'seen' | 'clock'>, rows: DeviceRow[]): DeviceResponse[] {
  const now = deps.clock.now()
  const intervals = deps.intervals(rows.map((r) => r.seq))
  return rows.map((r) => toDeviceResponse(r, now, lastSeenOf(deps, r), intervals.get(r.seq) ?? null))
}

/** The stored tags column (a JSON array); anything else reads as no tags. */
export function parseTags(stored: string): string[] {
  if (stored === '[]') return []
  try {
    const v: unknown = JSON.parse(stored)
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
  } catch {
    return []
  }
}

const limitMessage = (max: number) =>
  `This account may register at most ${max} device${max === 1 ? '' : 's'}. To raise the limit, upgrade the plan ` +
  `(POST /v1/billing/checkout), or ask the instance operator to set max_devices with PATCH /v1/admin/clients/{client_id}.`

/** Why a registration was refused, as the API answers it. */
export function refusal(r: Extract<Registered, { refused: string }>, max: number): AppError {
  return r.refused === 'device_mismatch'
    ? new AppError('device_mismatch', 'This API key is bound to another device and cannot register a new one')
    : new AppError('device_limit_reached', limitMessage(max))
}

/** What the store is asked to register for this caller: the facts, the client's limit in force, a new id. */
export async function registration(deps: Pick<DevicesDeps, 'clock' | 'clients'>, caller: DeviceCaller, body: DeviceRegister): Promise<DeviceRegistration> {
  return {
    clientId: caller.clientId,
    boundTo: caller.deviceId,
    fingerprint: body.fingerprint,
    facts: { hostname: body.hostname, os: body.os, os_version: body.os_version, arch: body.arch, mac_address: body.mac_address ?? null },
    max: await deps.clients.maxDevices(caller.clientId),
    newId: newId('dev'),
    now: deps.clock.now(),
  }
}

/**
 * Registers a device, or updates the one with the same fingerprint (a collector re-registers on
 * every start). The limit check and the insert are one store call in one transaction, so
 * concurrent registrations can never overshoot max_devices.
 */
export async function registerDevice(deps: DevicesDeps, caller: DeviceCaller, body: DeviceRegister): Promise<{ device: DeviceResponse; created: boolean }> {
  const r = await registration(deps, caller, body)
  const result = await deps.store.register(r)
  if ('refused' in result) throw refusal(result, r.max)
  if (result.created) deps.directory.forget(caller.clientId)
  const row = await deps.store.byId(caller.clientId, result.id)
  if (!row) throw notFound('Device') // deleted in between
  deps.directory.changed(row)
  const [device] = responses(deps, [row]) as [DeviceResponse]
  if (result.created) deps.events.registered(caller.clientId, device)
  return { device, created: result.created }
}

/**
 * After a device was registered by another step (a redeemed enrolment, which registers it in its
 * own transaction): the same cache drop and event as `registerDevice`.
 */
export async function deviceRegistered(deps: DevicesDeps, clientId: string, deviceId: string, created: boolean): Promise<void> {
  if (!created) return
  deps.directory.forget(clientId)
  const row = await deps.store.byId(clientId, deviceId)
  if (row) deps.directory.changed(row)
  if (row) deps.events.registered(clientId, responses(deps, [row])[0]!)
}

export async function listDevices(deps: DevicesDeps, clientId: string): Promise<DeviceResponse[]> {
  return responses(deps, await deps.store.listForClient(clientId))
}

/** The same, read synchronously: for the status pages' port. */
export function listDevicesNow(deps: DevicesDeps, clientId: string): DeviceResponse[] {
  return responses(deps, deps.directory.listForClient(clientId))
}

/** A device of this client (with last_seen_at and status); 404 for unknown ids and other tenants' devices. */
export async function getDevice(deps: DevicesDeps, clientId: string, deviceId: string): Promise<DeviceResponse> {
  const row = await deps.store.byId(clientId, deviceId)
  if (!row) throw notFound('Device')
  return responses(deps, [row])[0]!
}

/** Renames and/or retags a device of this client; a field left out is unchanged. 404 for other tenants' devices. */
export async function updateDevice(deps: DevicesDeps, clientId: string, deviceId: string, patch: DevicePatch): Promise<DeviceResponse> {
  const row = await deps.store.change(clientId, deviceId, patch, deps.clock.now())
  if (!row) throw notFound('Device')
  deps.directory.changed(row)
  return responses(deps, [row])[0]!
}

/** Whether this client has this device: for the API keys' port (a key bound to a device). */
export const deviceExists = async (deps: Pick<DevicesDeps, 'store'>, clientId: string, deviceId: string) => (await deps.store.byId(clientId, deviceId)) !== null

/** Every device with its stored last report: what the status sweep (devices.presence.ts) starts from. */
export const devicesLastSeen = (deps: Pick<DevicesDeps, 'store'>) => deps.store.lastSeenAll()

// ---- read synchronously, for the other domains' ports (the directory) ----

/** A device row of this client, or null: for domains that need its facts (hostname, last_seen_at). */
export function findDevice(deps: DevicesDeps, clientId: string, deviceId: string): DeviceRow | null {
  return deps.directory.byId(clientId, deviceId)
}

/** The account's devices, oldest first, with the seq their metrics are keyed on: for the fleet overview. */
export function deviceSummaries(deps: Pick<DevicesDeps, 'directory' | 'seen'>, clientId: string) {
  return deps.directory.listForClient(clientId).map((r) => ({
    id: r.id,
    seq: r.seq,
    name: r.name,
    hostname: r.hostname,
    os: r.os,
    os_version: r.os_version,
    arch: r.arch,
    tags: parseTags(r.tags),
    lastSeenAt: lastSeenOf(deps, r),
  }))
}

export function deviceIdsOf(deps: DevicesDeps, clientId: string): string[] {
  return deps.directory.listForClient(clientId).map((d) => d.id)
}

/**
 * Deletes a device; its metrics (every tier) and recommendations go with it by ON DELETE CASCADE,
 * and the API keys bound to it are revoked in the same transaction (one store call). Returns the
 * revoked key ids.
 */
export async function deleteDevice(deps: DevicesDeps, clientId: string, deviceId: string): Promise<string[]> {
  const revoked = await deps.store.remove(clientId, deviceId, deps.clock.now())
  if (revoked === null) throw notFound('Device')
  deps.keys.revoked(revoked)
  deps.directory.forget(clientId, deviceId)
  deps.events.deleted(clientId, deviceId)
  return revoked
}

/**
 * Which device a metric belongs to: the key's bound device; else the one named (x-device-id
 * header or device_id field); else the client's only device; else 422 device_required.
 * A device of another client is 404; a bound key naming another device is 403.
 */
export function resolveDevice(deps: DevicesDeps, key: DeviceCaller, named: string | null | undefined): DeviceRef {
  const dir = deps.directory
  if (key.deviceId) {
    if (named && named !== key.deviceId) throw new AppError('device_mismatch', 'This API key is bound to another device')
    const ref = dir.cachedRef(key.clientId, key.deviceId)
    if (!ref) throw notFound('Device')
    return ref
  }
  if (named) {
    const ref = dir.cachedRef(key.clientId, named)
    if (!ref) throw notFound('Device')
    return ref
  }
  const only = dir.cachedOnlyDevice(key.clientId)
  if (!only) {
    throw new AppError(
      'device_required',
      'Name the device: send the x-device-id header or a device_id field (the account has no single device to default to)',
      'device_id',
    )
  }
  return only
}

/**
 * Before an ingest request resolves its device: on PostgreSQL, a device this hub has not heard of
 * yet (made on another hub a moment ago) is read from the database first, so that it is not
 * refused. `body` is the request's parsed body, whose device_id names the device when no header does.
 */
export async function deviceKnown(deps: Pick<DevicesDeps, 'directory'>, key: DeviceCaller, header: string | null, body: unknown): Promise<void> {
  const field = (body as { device_id?: unknown } | null)?.device_id
  const named = key.deviceId ?? header ?? (typeof field === 'string' ? field : null)
  await deps.directory.known?.(key.clientId, named)
}

/** `resolveDevice`'s id, `deviceKnown` first: for the recommendations' ingest, which awaits it. */
export async function resolveKnownDevice(deps: DevicesDeps, key: DeviceCaller, named: string | null | undefined): Promise<string> {
  await deps.directory.known?.(key.clientId, key.deviceId ?? named ?? null)
  return resolveDevice(deps, key, named).id
}

/** A collector's route that resolves its device synchronously, as the metrics' ingest routes do. */
interface IngestRoute {
  handle(input: { key: DeviceCaller; body: unknown; request: Request }): unknown
}

/**
 * The ingest routes with `deviceKnown` first on PostgreSQL; unchanged on SQLite, whose reads are
 * the database's (its hot path gains no step).
 */
export function knownDeviceFirst<R extends IngestRoute>(deps: Pick<DevicesDeps, 'directory'>, routes: R[]): R[] {
  if (!deps.directory.known) return routes
  return routes.map((route) => ({
    ...route,
    handle: async (input: Parameters<R['handle']>[0]) => {
      await deviceKnown(deps, input.key, input.request.headers.get('x-device-id') || null, input.body)
      return route.handle(input)
    },
  }))
}

/** A device of this client for portal reads (metrics history, summary): 404 otherwise. */
export function deviceRef(deps: DevicesDeps, clientId: string, deviceId: string): DeviceRef {
  const ref = deps.directory.cachedRef(clientId, deviceId)
  if (!ref) throw notFound('Device')
  return ref
}

// ---- for the operator's views (admin) ----

/** Counts for GET /v1/admin/stats. */
export const deviceStats = async (deps: Pick<DevicesDeps, 'store'>) => ({ devices: await deps.store.countAll() })

export const deviceCount = (deps: Pick<DevicesDeps, 'store'>, clientId: string) => deps.store.countForClient(clientId)

// ---- for the metrics and AI domains ----

/** Every device's seq, the key its metric rows are stored under. */
export const deviceSeqs = (deps: Pick<DevicesDeps, 'directory'>) => deps.directory.seqs()

/** The devices a metrics scrape shows: one client's, or every client's (null). */
export const deviceLabels = (deps: Pick<DevicesDeps, 'directory'>, clientId: string | null) => deps.directory.labels(clientId)

/** Clients with at least one device, in id order. */
export const clientsWithDevices = (deps: Pick<DevicesDeps, 'directory'>) => deps.directory.clientsWithDevices()

/**
 * Records that a device reported at `at` (the ingest path calls it inside its write transaction on
 * SQLite; on PostgreSQL the directory writes the reports seen every 30 s in one statement).
 */
export const markDeviceSeen = (deps: Pick<DevicesDeps, 'directory'>, seq: number, at: number) => deps.directory.markSeen(seq, at)
