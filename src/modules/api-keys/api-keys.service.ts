import { toIso, type Clock } from '../../lib/clock'
import { sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import { AppError, notFound } from '../../http/errors'
import type { ApiKeyVerifier } from './api-keys.verifier'
import { generateApiKey, keyPrefixOf } from './api-keys.format'
import { DEFAULT_SCOPES, type APIKeyCreate, type APIKeyResponse } from './api-keys.model'
import type { ApiKeyRow, ApiKeysStore, NewApiKey, SqliteApiKeys } from './api-keys.store'

export interface ApiKeysDeps {
  store: ApiKeysStore
  /**
   * The same table through SQLite's synchronous statements, for the callers inside another
   * domain's SQLite transaction (device delete, enrolment redeem) and the operator's synchronous
   * counts, until those domains' stores are async too (docs/scale-out.md).
   */
  sqlite: SqliteApiKeys
  clock: Clock
  logger: Logger
  verifier: ApiKeyVerifier
  devices: KeyDevices
}

/** What keys need of the devices domain: a key may be bound only to a device of its own client. */
export interface KeyDevices {
  exists(clientId: string, deviceId: string): boolean | Promise<boolean>
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

/** A new key's row and its plaintext; only the SHA-256 is stored. */
function newKey(clientId: string, input: APIKeyCreate, now: number): { row: NewApiKey; plaintext: string } {
  const expiresAt = input.expires_at ? Date.parse(input.expires_at) : null
  if (expiresAt !== null && expiresAt <= now) throw new AppError('invalid_parameter', 'expires_at must be in the future', 'expires_at')
  const plaintext = generateApiKey()
  const row: NewApiKey = {
    id: newId('key'),
    client_id: clientId,
    name: input.name.trim() || input.name,
    key_prefix: keyPrefixOf(plaintext),
    key_hash: sha256Hex(plaintext),
    scopes: JSON.stringify([...new Set(input.scopes ?? DEFAULT_SCOPES)]),
    device_id: input.device_id ?? null,
    created_at: now,
    expires_at: expiresAt,
  }
  return { row, plaintext }
}

const created = (row: NewApiKey, plaintext: string): APIKeyResponse => toApiKeyResponse({ ...row, is_active: 1, last_used_at: null }, plaintext)

/** Creates a key; the plaintext is returned here once and only its SHA-256 is kept. */
export async function createApiKey(deps: ApiKeysDeps, clientId: string, input: APIKeyCreate): Promise<APIKeyResponse> {
  const { row, plaintext } = newKey(clientId, input, deps.clock.now())
  if (row.device_id !== null && !(await deps.devices.exists(clientId, row.device_id))) throw notFound('Device')
  await deps.store.insert(row)
  deps.logger.info('api key created', { key_id: row.id, client_id: clientId, scopes: JSON.parse(row.scopes) })
  return created(row, plaintext)
}

/**
 * For the enrolments domain, inside its SQLite transaction: a key bound to the device it just
 * registered (which therefore exists). Synchronous, so a failure rolls the enrolment back.
 */
export function createDeviceKeyInTransaction(
  deps: Pick<ApiKeysDeps, 'sqlite' | 'clock' | 'logger'>,
  clientId: string,
  deviceId: string,
  name: string,
): APIKeyResponse {
  const { row, plaintext } = newKey(clientId, { name, device_id: deviceId }, deps.clock.now())
  deps.sqlite.insert(row)
  deps.logger.info('api key created', { key_id: row.id, client_id: clientId, scopes: JSON.parse(row.scopes) })
  return created(row, plaintext)
}

export const listApiKeys = async (deps: ApiKeysDeps, clientId: string) => (await deps.store.listForClient(clientId)).map((r) => toApiKeyResponse(r))

/** Revokes a key of the caller's client; the verifier cache is dropped so the next request already fails. */
export async function revokeKey(deps: ApiKeysDeps, clientId: string, keyId: string) {
  if (!(await deps.store.byId(clientId, keyId))) throw notFound('API key')
  await deps.store.revoke(clientId, keyId, deps.clock.now())
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
export function revokeDeviceKeys(deps: Pick<ApiKeysDeps, 'sqlite' | 'clock' | 'verifier'>, clientId: string, deviceId: string): string[] {
  const revoked = deps.sqlite.revokeForDevice(clientId, deviceId, deps.clock.now())
  for (const id of revoked) deps.verifier.invalidate(id)
  return revoked
}

// ---- for the operator's views (admin) ----

/** Counts for GET /v1/admin/stats: live keys. */
export const apiKeyStats = (deps: Pick<ApiKeysDeps, 'sqlite'>) => ({ api_keys: deps.sqlite.countActive() })

export const activeKeyCount = (deps: Pick<ApiKeysDeps, 'sqlite'>, clientId: string) => deps.sqlite.countActive(clientId)
