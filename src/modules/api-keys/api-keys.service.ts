import { toIso, type Clock } from '../../lib/clock'
import { sha256Hex } from '../../lib/crypto'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import { AppError, notFound } from '../../http/errors'
import type { ApiKeyVerifier } from './api-keys.verifier'
import { generateApiKey, keyPrefixOf } from './api-keys.format'
import { DEFAULT_SCOPES, type APIKeyCreate, type APIKeyResponse } from './api-keys.model'
import type { ApiKeyRow, ApiKeysStore, NewApiKey } from './api-keys.store'

export interface ApiKeysDeps {
  store: ApiKeysStore
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

/** A key's row before it has a client and a device */
type KeyMaterial = Omit<NewApiKey, 'client_id' | 'device_id'>

/** A new key's row and its plaintext; only the SHA-256 is stored. */
function newKeyMaterial(input: Omit<APIKeyCreate, 'device_id'>, now: number): { row: KeyMaterial; plaintext: string } {
  const expiresAt = input.expires_at ? Date.parse(input.expires_at) : null
  if (expiresAt !== null && expiresAt <= now) throw new AppError('invalid_parameter', 'expires_at must be in the future', 'expires_at')
  const plaintext = generateApiKey()
  const row: KeyMaterial = {
    id: newId('key'),
    name: input.name.trim() || input.name,
    key_prefix: keyPrefixOf(plaintext),
    key_hash: sha256Hex(plaintext),
    scopes: JSON.stringify([...new Set(input.scopes ?? DEFAULT_SCOPES)]),
    created_at: now,
    expires_at: expiresAt,
  }
  return { row, plaintext }
}

function newKey(clientId: string, input: APIKeyCreate, now: number): { row: NewApiKey; plaintext: string } {
  const { row, plaintext } = newKeyMaterial(input, now)
  return { row: { ...row, client_id: clientId, device_id: input.device_id ?? null }, plaintext }
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
 * For the enrolments domain: the row of a key for the device a redemption registers, which
 * stores it in its own transaction with the device (the row's device and client are set there).
 * Only the plaintext's SHA-256 is in the row.
 */
export const prepareDeviceKey = (deps: Pick<ApiKeysDeps, 'clock'>, name: string) => newKeyMaterial({ name }, deps.clock.now())

export const listApiKeys = async (deps: ApiKeysDeps, clientId: string) => (await deps.store.listForClient(clientId)).map((r) => toApiKeyResponse(r))

/** Revokes a key of the caller's client; the verifier cache is dropped so the next request already fails. */
export async function revokeKey(deps: ApiKeysDeps, clientId: string, keyId: string) {
  if (!(await deps.store.byId(clientId, keyId))) throw notFound('API key')
  await deps.store.revoke(clientId, keyId, deps.clock.now())
  deps.verifier.invalidate(keyId)
  deps.logger.info('api key revoked', { key_id: keyId, client_id: clientId })
}

/**
 * For the devices domain, after a device's delete revoked its keys in the same transaction (the
 * foreign key is ON DELETE SET NULL, and a key with no device acts for the whole client, so
 * leaving it active would widen a one-device credential to every device): their cached
 * principals are dropped here and on every other hub.
 */
export function forgetRevokedKeys(deps: Pick<ApiKeysDeps, 'verifier'>, keyIds: string[]): void {
  for (const id of keyIds) deps.verifier.invalidate(id)
}

// ---- for the operator's views (admin) ----

/** Counts for GET /v1/admin/stats: live keys. */
export const apiKeyStats = async (deps: Pick<ApiKeysDeps, 'store'>) => ({ api_keys: await deps.store.countActive() })

export const activeKeyCount = (deps: Pick<ApiKeysDeps, 'store'>, clientId: string) => deps.store.countActive(clientId)
