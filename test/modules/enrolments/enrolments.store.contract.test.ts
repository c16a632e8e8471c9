import { describe, expect, test } from 'bun:test'
import { createEnrolmentsStore, type EnrolmentsStore, type NewEnrolment, sqliteEnrolments } from '../../../src/modules/enrolments/enrolments.store'
import { createEnrolmentsStorePg } from '../../../src/modules/enrolments/enrolments.store.pg'
import { type ApiKeysStore, createApiKeysStore, sqliteApiKeys } from '../../../src/modules/api-keys/api-keys.store'
import { createApiKeysStorePg } from '../../../src/modules/api-keys/api-keys.store.pg'
import { createDevicesStore, type DevicesStore, sqliteDevices } from '../../../src/modules/devices/devices.store'
import { createDevicesStorePg } from '../../../src/modules/devices/devices.store.pg'
import type { Redemption } from '../../../src/modules/enrolments/enrolments.store'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The enrolments store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): EnrolmentsStore => (db.sqlite ? createEnrolmentsStore(sqliteEnrolments(db.sqlite)) : createEnrolmentsStorePg(db.pg!))

const keysOf = (db: EngineDb): ApiKeysStore => (db.sqlite ? createApiKeysStore(sqliteApiKeys(db.sqlite)) : createApiKeysStorePg(db.pg!))
const devicesOf = (db: EngineDb): DevicesStore => (db.sqlite ? createDevicesStore(sqliteDevices(db.sqlite)) : createDevicesStorePg(db.pg!))

const NOW = 1_700_000_100_000
const facts = { hostname: 'web-9', os: 'linux', os_version: '6.8', arch: 'x86_64', mac_address: null }
const redemption = (o: { tokenHash: string; key: string; device: string; fingerprint?: string; max?: number }): Redemption => ({
  tokenHash: o.tokenHash,
  clientId: 'c1',
  now: NOW,
  device: { fingerprint: o.fingerprint ?? `fp-${o.device}`, facts, max: o.max ?? 10, newId: o.device, now: NOW },
  key: { id: o.key, name: 'enrolled: web-9', key_prefix: 'vk_abc', key_hash: `khash-${o.key}`, scopes: '["metrics:write"]', created_at: NOW, expires_at: null },
})

const enrolment = (over: Partial<NewEnrolment> & { id: string }): NewEnrolment => ({
  client_id: 'c1',
  token_hash: `hash-${over.id}`,
  created_by: 'usr_1',
  created_at: 1_700_000_000_000,
  expires_at: 1_700_003_600_000,
  ...over,
})

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
  await db.exec("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES ('d1', 'c1', 'fp1', 1, 1, '[]')")
  await db.exec("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES ('d2', 'c1', 'fp2', 1, 1, '[]')")
}

for (const engine of ENGINES) {
  describe(`enrolments store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: EnrolmentsStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`an enrolment reads back by its token's hash, unused, with numbers as numbers ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(enrolment({ id: 'e1' }))
      await store.insert(enrolment({ id: 'e2', client_id: 'c2' }))
      expect(await store.byHash('hash-e1')).toEqual({
        id: 'e1',
        client_id: 'c1',
        created_by: 'usr_1',
        created_at: 1_700_000_000_000,
        expires_at: 1_700_003_600_000,
        used_at: null,
        device_id: null,
      })
      expect((await store.byHash('hash-e2'))!.client_id).toBe('c2')
      expect(await store.byHash('nope')).toBeNull()
    })

    test.skipIf(skip)(`a token hash is unique ${engine.skipReason}`, async () => {
      await ready()
      await expect(store.insert(enrolment({ id: 'e1-twin', token_hash: 'hash-e1' }))).rejects.toThrow()
      expect((await store.byHash('hash-e1'))!.id).toBe('e1')
    })

    test.skipIf(skip)(`a token is spent once: the second markUsed changes nothing and says so ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.markUsed('e1', 1_700_000_100_000, 'd1')).toBe(true)
      expect(await store.markUsed('e1', 1_700_000_200_000, 'd2')).toBe(false)
      const spent = await store.byHash('hash-e1')
      expect([spent!.used_at, spent!.device_id]).toEqual([1_700_000_100_000, 'd1'])
      expect(await store.markUsed('unknown', 1, 'd1')).toBe(false)
      expect((await store.byHash('hash-e2'))!.used_at).toBeNull()
    })

    test.skipIf(skip)(`prune drops the rows expired before the time given, used or not, and keeps the rest ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(enrolment({ id: 'e3', expires_at: 1_700_010_000_000 }))
      await store.prune(1_700_003_600_000) // strictly before: e1 and e2 expire at that instant and stay
      expect(await store.byHash('hash-e1')).not.toBeNull()
      await store.prune(1_700_003_600_001)
      expect(await store.byHash('hash-e1')).toBeNull()
      expect(await store.byHash('hash-e2')).toBeNull()
      expect((await store.byHash('hash-e3'))!.id).toBe('e3')
    })

    test.skipIf(skip)(`a redemption spends the token, registers the device and binds a new key to it, in one call ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(enrolment({ id: 'r1' }))
      expect(await store.redeem(redemption({ tokenHash: 'hash-r1', device: 'dev-r1', key: 'key-r1' }))).toEqual({
        enrolmentId: 'r1',
        deviceId: 'dev-r1',
        created: true,
      })
      expect(await store.byHash('hash-r1')).toMatchObject({ used_at: NOW, device_id: 'dev-r1' })
      expect(await devicesOf(handle.db).byId('c1', 'dev-r1')).toMatchObject({ fingerprint: 'fp-dev-r1', hostname: 'web-9', created_at: NOW })
      expect(await keysOf(handle.db).byHash('khash-key-r1')).toMatchObject({ id: 'key-r1', client_id: 'c1', device_id: 'dev-r1', is_active: 1 })
    })

    test.skipIf(skip)(`a spent, expired, unknown or other client's token is refused and nothing is written ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(enrolment({ id: 'r2', expires_at: NOW })) // expires at this very instant
      await store.insert(enrolment({ id: 'r3', client_id: 'c2' }))
      const refused = { refused: 'invalid_enrolment' } as const
      expect(await store.redeem(redemption({ tokenHash: 'hash-r1', device: 'dev-x1', key: 'key-x1' }))).toEqual(refused)
      expect(await store.redeem(redemption({ tokenHash: 'hash-r2', device: 'dev-x2', key: 'key-x2' }))).toEqual(refused)
      expect(await store.redeem(redemption({ tokenHash: 'nope', device: 'dev-x3', key: 'key-x3' }))).toEqual(refused)
      expect(await store.redeem(redemption({ tokenHash: 'hash-r3', device: 'dev-x4', key: 'key-x4' }))).toEqual(refused) // read for c1, it is c2's
      expect((await store.byHash('hash-r2'))!.used_at).toBeNull()
      expect((await store.byHash('hash-r3'))!.used_at).toBeNull()
      for (const id of ['dev-x1', 'dev-x2', 'dev-x3', 'dev-x4']) expect(await devicesOf(handle.db).byId('c1', id)).toBeNull()
      for (const id of ['key-x1', 'key-x2', 'key-x3', 'key-x4']) expect(await keysOf(handle.db).byHash(`khash-${id}`)).toBeNull()
      expect((await store.byHash('hash-r1'))!.device_id).toBe('dev-r1')
    })

    test.skipIf(skip)(`a device past the client's limit refuses the redemption, the token stays unspent and no key is made ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(enrolment({ id: 'r4' }))
      const before = await devicesOf(handle.db).countForClient('c1')
      expect(await store.redeem(redemption({ tokenHash: 'hash-r4', device: 'dev-r4', key: 'key-r4', max: before }))).toEqual({
        refused: 'device_limit_reached',
      })
      expect(await store.byHash('hash-r4')).toMatchObject({ used_at: null, device_id: null })
      expect(await devicesOf(handle.db).countForClient('c1')).toBe(before)
      expect(await keysOf(handle.db).byHash('khash-key-r4')).toBeNull()
      // the same token, once the limit allows it, still works
      expect(await store.redeem(redemption({ tokenHash: 'hash-r4', device: 'dev-r4', key: 'key-r4', max: before + 1 }))).toMatchObject({ created: true })
    })

    test.skipIf(skip)(`re-enrolling a known machine keeps its device, even at the limit, and gives it another key ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(enrolment({ id: 'r5' }))
      const count = await devicesOf(handle.db).countForClient('c1')
      const again = await store.redeem(redemption({ tokenHash: 'hash-r5', device: 'dev-unused', key: 'key-r5', fingerprint: 'fp-dev-r1', max: count }))
      expect(again).toEqual({ enrolmentId: 'r5', deviceId: 'dev-r1', created: false })
      expect(await devicesOf(handle.db).byId('c1', 'dev-unused')).toBeNull()
      expect((await keysOf(handle.db).byHash('khash-key-r5'))!.device_id).toBe('dev-r1')
      expect((await keysOf(handle.db).byHash('khash-key-r1'))!.is_active).toBe(1)
    })

    test.skipIf(skip)(`one token redeemed several times at once is spent once: one device, one key ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(enrolment({ id: 'r6' }))
      const results = await Promise.all(
        [0, 1, 2, 3].map((i) => store.redeem(redemption({ tokenHash: 'hash-r6', device: `dev-r6-${i}`, key: `key-r6-${i}`, fingerprint: `fp-r6-${i}` }))),
      )
      expect(results.filter((r) => 'created' in r).length).toBe(1)
      expect(results.filter((r) => 'refused' in r && r.refused === 'invalid_enrolment').length).toBe(3)
      const keys = await Promise.all([0, 1, 2, 3].map((i) => keysOf(handle.db).byHash(`khash-key-r6-${i}`)))
      expect(keys.filter((k) => k !== null).length).toBe(1)
    })
  })
}
