import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'

export interface ApiKeyRow {
  id: string
  client_id: string
  name: string
  key_prefix: string
  scopes: string
  device_id: string | null
  /** 1 or 0, on either engine */
  is_active: number
  created_at: number
  last_used_at: number | null
  expires_at: number | null
}

/** What the verifier needs of a key, found by its hash. */
export type ApiKeyCredentialRow = Pick<ApiKeyRow, 'id' | 'client_id' | 'scopes' | 'device_id' | 'is_active' | 'expires_at' | 'last_used_at'>

export type NewApiKey = Omit<ApiKeyRow, 'is_active' | 'last_used_at'> & { key_hash: string }

/**
 * The api_keys table, on either engine (this file: SQLite; api-keys.store.pg.ts: PostgreSQL).
 * Every tenant-owned read and write filters by client_id; `byHash` and `touch` serve the
 * verifier, which has no client yet.
 */
export interface ApiKeysStore {
  insert(k: NewApiKey): Promise<void>
  /** newest first */
  listForClient(clientId: string): Promise<ApiKeyRow[]>
  byId(clientId: string, id: string): Promise<ApiKeyRow | null>
  byHash(hash: string): Promise<ApiKeyCredentialRow | null>
  revoke(clientId: string, id: string, now: number): Promise<void>
  /** revokes the live keys bound to a device; returns their ids */
  revokeForDevice(clientId: string, deviceId: string, now: number): Promise<string[]>
  touch(id: string, now: number): Promise<void>
  /** live keys, of one client or of all, for the operator's views */
  countActive(clientId?: string): Promise<number>
}

const COLUMNS = 'id, client_id, name, key_prefix, scopes, device_id, is_active, created_at, last_used_at, expires_at'

function build(sqlite: Database) {
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
    listForClient: (clientId: string) => listForClient.all(clientId),
    byId: (clientId: string, id: string) => byId.get(clientId, id),
    byHash: (hash: string) => byHash.get(hash),
    revoke: (clientId: string, id: string, now: number) => void revoke.run(now, clientId, id),
    revokeForDevice: (clientId: string, deviceId: string, now: number) => revokeForDevice.all(now, clientId, deviceId).map((r) => r.id),
    touch: (id: string, now: number) => void touch.run(now, id),
    countActive: (clientId?: string): number => (clientId === undefined ? countActive.get()!.n : countActiveOf.get(clientId)!.n),
  }
}

/**
 * SQLite's statements, synchronous, one set per connection. Besides backing `createApiKeysStore`,
 * they serve the steps of other stores that run in one SQLite transaction with a key's write
 * (a deleted device revokes its keys, a redeemed enrolment makes one).
 */
export const sqliteApiKeys = perConnection(build)

export type SqliteApiKeys = ReturnType<typeof build>

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createApiKeysStore(keys: SqliteApiKeys): ApiKeysStore {
  return {
    insert: async (k) => keys.insert(k),
    listForClient: async (clientId) => keys.listForClient(clientId),
    byId: async (clientId, id) => keys.byId(clientId, id),
    byHash: async (hash) => keys.byHash(hash),
    revoke: async (clientId, id, now) => keys.revoke(clientId, id, now),
    revokeForDevice: async (clientId, deviceId, now) => keys.revokeForDevice(clientId, deviceId, now),
    touch: async (id, now) => keys.touch(id, now),
    countActive: async (clientId) => keys.countActive(clientId),
  }
}
