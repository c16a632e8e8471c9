import { describe, expect, test } from 'bun:test'
import { type ApiKeysStore, createApiKeysStore, type NewApiKey, sqliteApiKeys } from '../../../src/modules/api-keys/api-keys.store'
import { createApiKeysStorePg } from '../../../src/modules/api-keys/api-keys.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The api_keys store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): ApiKeysStore => (db.sqlite ? createApiKeysStore(sqliteApiKeys(db.sqlite)) : createApiKeysStorePg(db.pg!))

const key = (over: Partial<NewApiKey> & { id: string; client_id: string }): NewApiKey => ({
  name: `key ${over.id}`,
  key_prefix: `vk_${over.id}`,
  key_hash: `hash-${over.id}`,
  scopes: '["metrics:write"]',
  device_id: null,
  created_at: 1_700_000_000_000,
  expires_at: null,
  ...over,
})

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
  await db.exec("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES ('d1', 'c1', 'fp1', 1, 1, '[]')")
  await db.exec("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES ('d2', 'c2', 'fp2', 1, 1, '[]')")
}

for (const engine of ENGINES) {
  describe(`api keys store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: ApiKeysStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`a key reads back as written, by id within its client and by hash ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(key({ id: 'k1', client_id: 'c1', device_id: 'd1', expires_at: 1_800_000_000_000 }))
      const full = {
        id: 'k1',
        client_id: 'c1',
        name: 'key k1',
        key_prefix: 'vk_k1',
        scopes: '["metrics:write"]',
        device_id: 'd1',
        is_active: 1,
        created_at: 1_700_000_000_000,
        last_used_at: null,
        expires_at: 1_800_000_000_000,
      }
      expect(await store.byId('c1', 'k1')).toEqual(full)
      expect(await store.byHash('hash-k1')).toEqual({
        id: 'k1',
        client_id: 'c1',
        scopes: '["metrics:write"]',
        device_id: 'd1',
        is_active: 1,
        expires_at: 1_800_000_000_000,
        last_used_at: null,
      })
      // another tenant's key is not found by id; an unknown hash is null
      expect(await store.byId('c2', 'k1')).toBeNull()
      expect(await store.byHash('nope')).toBeNull()
    })

    test.skipIf(skip)(`a key hash is unique ${engine.skipReason}`, async () => {
      await ready()
      await expect(store.insert(key({ id: 'k1-twin', client_id: 'c2', key_hash: 'hash-k1' }))).rejects.toThrow()
      expect(await store.byId('c2', 'k1-twin')).toBeNull()
    })

    test.skipIf(skip)(`a client's keys are listed newest first, ties by id, and never another client's ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(key({ id: 'k2', client_id: 'c1', created_at: 1_700_000_000_500 }))
      await store.insert(key({ id: 'k3', client_id: 'c1', created_at: 1_700_000_000_500 }))
      await store.insert(key({ id: 'k9', client_id: 'c2', device_id: 'd2' }))
      expect((await store.listForClient('c1')).map((k) => k.id)).toEqual(['k3', 'k2', 'k1'])
      expect((await store.listForClient('c2')).map((k) => k.id)).toEqual(['k9'])
      expect(await store.listForClient('c3')).toEqual([])
    })

    test.skipIf(skip)(`touch writes last_used_at; counts are of live keys, per client or all ${engine.skipReason}`, async () => {
      await ready()
      await store.touch('k2', 1_700_000_100_000)
      expect((await store.byHash('hash-k2'))!.last_used_at).toBe(1_700_000_100_000)
      expect(await store.countActive('c1')).toBe(3)
      expect(await store.countActive()).toBe(4)
    })

    test.skipIf(skip)(`revoke ends a key of its own client only; revokeForDevice names the keys bound to the device ${engine.skipReason}`, async () => {
      await ready()
      await store.revoke('c2', 'k2', 5) // not c2's: nothing happens
      expect((await store.byId('c1', 'k2'))!.is_active).toBe(1)
      await store.revoke('c1', 'k2', 5)
      expect((await store.byId('c1', 'k2'))!.is_active).toBe(0)
      expect((await store.byHash('hash-k2'))!.is_active).toBe(0)
      expect(await store.countActive('c1')).toBe(2)
      expect(await store.revokeForDevice('c2', 'd1', 6)).toEqual([]) // another client's device
      expect(await store.revokeForDevice('c1', 'd1', 6)).toEqual(['k1'])
      expect((await store.byId('c1', 'k1'))!.is_active).toBe(0)
      expect(await store.countActive()).toBe(2)
    })
  })
}
