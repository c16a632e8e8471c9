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

/** What the verifier needs of a key, found by its hash. */
export type ApiKeyCredentialRow = Pick<ApiKeyRow, 'id' | 'client_id' | 'scopes' | 'device_id' | 'is_active' | 'expires_at' | 'last_used_at'>

export type NewApiKey = Omit<ApiKeyRow, 'is_active' | 'last_used_at'> & { key_hash: string }

const COLUMNS = 'id, client_id, name, key_prefix, scopes, device_id, is_active, created_at, last_used_at, expires_at'

/** The api_keys table. */
export function createApiKeysStore(sqlite: Database) {
  const insert = sqlite.query<never, [string, string, string, string, string, string, string | null, number, number | null]>(
    'INSERT INTO api_keys (id, client_id, name, key_prefix, key_hash, scopes, device_id, is_active, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)',
  )
  const listForClient = sqlite.query<ApiKeyRow, [string]>(`SELECT ${COLUMNS} FROM api_keys WHERE client_id = ? ORDER BY created_at DESC, id DESC`)
  const byId = sqlite.query<ApiKeyRow, [string, string]>(`SELECT ${COLUMNS} FROM api_keys WHERE client_id = ? AND id = ?`)
  const byHash = sqlite.query<ApiKeyCredentialRow, [string]>(
    'SELECT id, client_id, scopes, device_id, is_active, expires_at, last_used_at FROM api_keys WHERE key_hash = ?',
  )
  const revoke = sqlite.query<never, [number, string, string]>(
    'UPDATE api_keys SET is_active = 0, revoked_at = coalesce(revoked_at, ?) WHERE client_id = ? AND id = ?',
  )
  const revokeForDevice = sqlite.query<{ id: string }, [number, string, string]>(
    'UPDATE api_keys SET is_active = 0, revoked_at = coalesce(revoked_at, ?) WHERE client_id = ? AND device_id = ? RETURNING id',
  )
  const touch = sqlite.query<never, [number, string]>('UPDATE api_keys SET last_used_at = ? WHERE id = ?')
  const countActive = sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM api_keys WHERE is_active = 1')
  const countActiveOf = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM api_keys WHERE client_id = ? AND is_active = 1')
  return {
    insert(k: NewApiKey) {
      insert.run(k.id, k.client_id, k.name, k.key_prefix, k.key_hash, k.scopes, k.device_id, k.created_at, k.expires_at)
    },
    /** newest first */
    listForClient: (clientId: string) => listForClient.all(clientId),
    byId: (clientId: string, id: string) => byId.get(clientId, id),
    byHash: (hash: string) => byHash.get(hash),
    revoke: (clientId: string, id: string, now: number) => void revoke.run(now, clientId, id),
    /** revokes the live keys bound to a device; returns their ids */
    revokeForDevice: (clientId: string, deviceId: string, now: number) => revokeForDevice.all(now, clientId, deviceId).map((r) => r.id),
    touch: (id: string, now: number) => void touch.run(now, id),
    /** live keys, of one client or of all, for the operator's views */
    countActive: (clientId?: string): number => (clientId === undefined ? countActive.get()!.n : countActiveOf.get(clientId)!.n),
  }
}

export type ApiKeysStore = ReturnType<typeof createApiKeysStore>
