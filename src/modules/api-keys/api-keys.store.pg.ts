import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import type { ApiKeyCredentialRow, ApiKeyRow, ApiKeysStore, NewApiKey } from './api-keys.store'

const credential = (r: Raw): ApiKeyCredentialRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  scopes: r.scopes as string,
  device_id: (r.device_id as string | null) ?? null,
  // boolean in PostgreSQL, 1/0 as SQLite stores it
  is_active: r.is_active ? 1 : 0,
  expires_at: numOrNull(r.expires_at),
  last_used_at: numOrNull(r.last_used_at),
})

const row = (r: Raw): ApiKeyRow => ({
  ...credential(r),
  name: r.name as string,
  key_prefix: r.key_prefix as string,
  created_at: num(r.created_at),
})

/** Inserts a live key; `sql` may be a transaction of another store's step (a redeemed enrolment). */
export async function insertApiKeyPg(sql: SQL, k: NewApiKey): Promise<void> {
  await sql`INSERT INTO api_keys (id, client_id, name, key_prefix, key_hash, scopes, device_id, is_active, created_at, expires_at)
    VALUES (${k.id}, ${k.client_id}, ${k.name}, ${k.key_prefix}, ${k.key_hash}, ${k.scopes}, ${k.device_id}, true, ${k.created_at}, ${k.expires_at})`
}

/** Revokes the keys bound to a device, returning their ids; `sql` may be the device delete's transaction. */
export async function revokeDeviceKeysPg(sql: SQL, clientId: string, deviceId: string, now: number): Promise<string[]> {
  const rows: { id: string }[] = await sql`UPDATE api_keys SET is_active = false, revoked_at = coalesce(revoked_at, ${now})
    WHERE client_id = ${clientId} AND device_id = ${deviceId} RETURNING id`
  return rows.map((r) => r.id)
}

/** The api_keys table on PostgreSQL: the same answers as the SQLite store (api-keys.store.contract.test.ts). */
export function createApiKeysStorePg(sql: SQL): ApiKeysStore {
  return {
    insert: (k) => insertApiKeyPg(sql, k),
    async listForClient(clientId) {
      const rows: Raw[] = await sql`SELECT id, client_id, name, key_prefix, scopes, device_id, is_active, created_at, last_used_at, expires_at
        FROM api_keys WHERE client_id = ${clientId} ORDER BY created_at DESC, id DESC`
      return rows.map(row)
    },
    async byId(clientId, id) {
      const [r]: Raw[] = await sql`SELECT id, client_id, name, key_prefix, scopes, device_id, is_active, created_at, last_used_at, expires_at
        FROM api_keys WHERE client_id = ${clientId} AND id = ${id}`
      return r ? row(r) : null
    },
    async byHash(hash) {
      const [r]: Raw[] = await sql`SELECT id, client_id, scopes, device_id, is_active, expires_at, last_used_at FROM api_keys WHERE key_hash = ${hash}`
      return r ? credential(r) : null
    },
    async revoke(clientId, id, now) {
      await sql`UPDATE api_keys SET is_active = false, revoked_at = coalesce(revoked_at, ${now}) WHERE client_id = ${clientId} AND id = ${id}`
    },
    revokeForDevice: (clientId, deviceId, now) => revokeDeviceKeysPg(sql, clientId, deviceId, now),
    async touch(id, now) {
      await sql`UPDATE api_keys SET last_used_at = ${now} WHERE id = ${id}`
    },
    async countActive(clientId) {
      const [r]: { n: number }[] =
        clientId === undefined
          ? await sql`SELECT count(*)::int AS n FROM api_keys WHERE is_active`
          : await sql`SELECT count(*)::int AS n FROM api_keys WHERE client_id = ${clientId} AND is_active`
      return r!.n
    },
  }
}
