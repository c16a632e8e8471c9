import { toIso, type Clock } from '../../lib/clock'
import { sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import { AppError, notFound } from '../../http/errors'
import type { ApiKeyVerifier } from './api-keys.verifier'
import { generateApiKey, keyPrefixOf } from './api-keys.format'
import { DEFAULT_SCOPES, type APIKeyCreate, type APIKeyResponse } from './api-keys.model'
import type { ApiKeyRow, ApiKeysStore } from './api-keys.store'

export interface ApiKeysDeps {
  store: ApiKeysStore
  clock: Clock
  logger: Logger
  verifier: ApiKeyVerifier
  devices: KeyDevices
}

/** What keys need of the devices domain: a key may be bound only to a device of its own client. */
export interface KeyDevices {
  exists(clientId: string, deviceId: string): boolean
}

export function toApiKeyResponse(row: ApiKeyRow, plaintext: string | null = null): APIKeyResponse {
  return {
    key_id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    api_key: plaintext,
    scopes: JSON.parse(row.scopes),
    is_active: row.is_active === 1,
    created_at: toIso(row.created_at),
    last_used_at: row.last_used_at === null ? null : toIso(row.last_used_at),
    expires_at: row.expires_at === null ? null : toIso(row.expires_at),
    device_id: row.device_id,
  }
}

/** Creates a key; the plaintext is returned here once and only its SHA-256 is kept. */
export function createApiKey(deps: ApiKeysDeps, clientId: string, input: APIKeyCreate): APIKeyResponse {
  const now = deps.clock.now()
  const expiresAt = input.expires_at ? Date.parse(input.expires_at) : null
  if (expiresAt !== null && expiresAt <= now) throw new AppError('invalid_parameter', 'expires_at must be in the future', 'expires_at')
  const deviceId = input.device_id ?? null
  if (deviceId !== null && !deps.devices.exists(clientId, deviceId)) throw notFound('Device')
  const scopes = [...new Set(input.scopes ?? DEFAULT_SCOPES)]
  const key = generateApiKey()
  const id = newId('key')
  deps.store.insert({
    id,
    client_id: clientId,
    name: input.name.trim() || input.name,
    key_prefix: keyPrefixOf(key),
    key_hash: sha256Hex(key),
    scopes: JSON.stringify(scopes),
    device_id: deviceId,
    created_at: now,
    expires_at: expiresAt,
  })
  deps.logger.info('api key created', { key_id: id, client_id: clientId, scopes })
  return toApiKeyResponse(deps.store.byId(clientId, id)!, key)
}

export const listApiKeys = (deps: ApiKeysDeps, clientId: string) => deps.store.listForClient(clientId).map((r) => toApiKeyResponse(r))

/** Revokes a key of the caller's client; the verifier cache is dropped so the next request already fails. */
export function revokeKey(deps: ApiKeysDeps, clientId: string, keyId: string) {
  if (!deps.store.byId(clientId, keyId)) throw notFound('API key')
  deps.store.revoke(clientId, keyId, deps.clock.now())
  deps.verifier.invalidate(keyId)
  deps.logger.info('api key revoked', { key_id: keyId, client_id: clientId })
}

/**
 * For the devices domain, inside its delete transaction: a key bound to a device dies with it.
 * (The foreign key is ON DELETE SET NULL, and a key with no device acts for the whole client,
 * so leaving it active would widen a one-device credential to every device.) Their cached
 * principals are dropped here too: nothing else runs before the transaction commits, and a
 * rollback only costs a cache miss. Returns the revoked ids.
 */
export function revokeDeviceKeys(deps: Pick<ApiKeysDeps, 'store' | 'clock' | 'verifier'>, clientId: string, deviceId: string): string[] {
  const revoked = deps.store.revokeForDevice(clientId, deviceId, deps.clock.now())
  for (const id of revoked) deps.verifier.invalidate(id)
  return revoked
}

// ---- for the operator's views (admin) ----

/** Counts for GET /v1/admin/stats: live keys. */
export const apiKeyStats = (deps: Pick<ApiKeysDeps, 'store'>) => ({ api_keys: deps.store.countActive() })

export const activeKeyCount = (deps: Pick<ApiKeysDeps, 'store'>, clientId: string) => deps.store.countActive(clientId)
