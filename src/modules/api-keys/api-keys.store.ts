import type { Database } from 'bun:sqlite'

export interface ApiKeyRow {
  id: string
  client_id: string
  name: string
  key_prefix: string
  scopes: string
  device_id: string | null
  is_active: number
  created_at: number
  last_used_at: number | null
  expires_at: number | null
}

const COLUMNS = 'id, client_id, name, key_prefix, scopes, device_id, is_active, created_at, last_used_at, expires_at'

export function insertApiKey(sqlite: Database, k: Omit<ApiKeyRow, 'is_active' | 'last_used_at'> & { key_hash: string }) {
  sqlite
    .query('INSERT INTO api_keys (id, client_id, name, key_prefix, key_hash, scopes, device_id, is_active, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)')
    .run(k.id, k.client_id, k.name, k.key_prefix, k.key_hash, k.scopes, k.device_id, k.created_at, k.expires_at)
}

export const apiKeysOf = (sqlite: Database, clientId: string) =>
  sqlite.query<ApiKeyRow, [string]>(`SELECT ${COLUMNS} FROM api_keys WHERE client_id = ? ORDER BY created_at DESC, id DESC`).all(clientId)

export const apiKeyById = (sqlite: Database, clientId: string, id: string) =>
  sqlite.query<ApiKeyRow, [string, string]>(`SELECT ${COLUMNS} FROM api_keys WHERE client_id = ? AND id = ?`).get(clientId, id)

export const revokeApiKey = (sqlite: Database, clientId: string, id: string, now: number) =>
  sqlite.query('UPDATE api_keys SET is_active = 0, revoked_at = coalesce(revoked_at, ?) WHERE client_id = ? AND id = ?').run(now, clientId, id)

/** Revokes the live keys bound to a device (its deletion must not leave them acting for the whole client). */
export const revokeKeysOfDevice = (sqlite: Database, clientId: string, deviceId: string, now: number) =>
  sqlite
    .query<{ id: string }, [number, string, string]>('UPDATE api_keys SET is_active = 0, revoked_at = coalesce(revoked_at, ?) WHERE client_id = ? AND device_id = ? RETURNING id')
    .all(now, clientId, deviceId)
    .map((r) => r.id)

/** The device must belong to the same client; another tenant's device does not exist for us. */
export const deviceOfClient = (sqlite: Database, clientId: string, deviceId: string) =>
  sqlite.query<{ id: string }, [string, string]>('SELECT id FROM devices WHERE client_id = ? AND id = ?').get(clientId, deviceId)
