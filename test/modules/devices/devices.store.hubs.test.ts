import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { openPostgres } from '../../../src/db/pg/connection'
import { migratePostgres } from '../../../src/db/pg/migrate'
import type { DeviceRegistration, DevicesStore } from '../../../src/modules/devices/devices.store'
import { createDevicesStorePg } from '../../../src/modules/devices/devices.store.pg'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'

/**
 * Two hubs on one PostgreSQL database, each with its own pool and store: what one registers the
 * other sees, and together they never register past a client's limit nor twice one fingerprint.
 */
const pg = postgresForTests()
const facts = { hostname: 'h', os: 'linux', os_version: '6', arch: 'x86_64', mac_address: null }
const reg = (over: Partial<DeviceRegistration> & { newId: string; fingerprint: string }): DeviceRegistration => ({
  clientId: 'c1',
  boundTo: null,
  facts,
  max: 3,
  now: 1_700_000_000_000,
  ...over,
})

describe.skipIf(!pg.url)('devices on two hubs sharing PostgreSQL', () => {
  let fresh: FreshDatabase
  const pools: SQL[] = []
  let hubs: [DevicesStore, DevicesStore]
  beforeAll(async () => {
    fresh = await pg.freshDatabase('vigil_devices_hubs')
    for (let i = 0; i < 2; i++) pools.push(openPostgres({ url: fresh.url, pool: 4 }))
    await migratePostgres(pools[0]!, 1)
    await pools[0]!.unsafe("INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'c1', 1, 1), ('c2', 'c2', 1, 1)")
    hubs = [createDevicesStorePg(pools[0]!), createDevicesStorePg(pools[1]!)]
  }, 60_000)
  afterAll(async () => {
    for (const p of pools) await p.close()
    await fresh?.drop()
  }, 60_000)

  test(`registrations of one client spread over both hubs at once stop at its limit, and the others are refused ${pg.skipReason}`, async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => hubs[i % 2]!.register(reg({ newId: `d${i}`, fingerprint: `fp${i}` }))))
    expect(results.filter((r) => 'created' in r && r.created).length).toBe(3)
    expect(results.filter((r) => 'refused' in r).length).toBe(9)
    expect(await hubs[0].countForClient('c1')).toBe(3)
    expect((await hubs[1].listForClient('c1')).length).toBe(3)
  }, 60_000)

  test(`one machine registering on both hubs at once is one device ${pg.skipReason}`, async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => hubs[i % 2]!.register(reg({ clientId: 'c2', newId: `m${i}`, fingerprint: 'same', max: 10 }))),
    )
    const ids = new Set(results.map((r) => ('id' in r ? r.id : 'refused')))
    expect(ids.size).toBe(1)
    expect(results.filter((r) => 'created' in r && r.created).length).toBe(1)
    expect(await hubs[1].countForClient('c2')).toBe(1)
  }, 60_000)

  test(`seqs handed out by both hubs are distinct ${pg.skipReason}`, async () => {
    const seqs = await hubs[1].seqs()
    expect(seqs.length).toBe(4)
    expect(new Set(seqs).size).toBe(4)
  })

  test(`one device deleted on both hubs at once is deleted once, its keys revoked with it ${pg.skipReason}`, async () => {
    const created = await hubs[0].register(reg({ clientId: 'c2', newId: 'gone', fingerprint: 'fp-gone', max: 10 }))
    expect(created).toEqual({ id: 'gone', created: true })
    await pools[0]!.unsafe(`INSERT INTO api_keys (id, client_id, name, key_prefix, key_hash, scopes, device_id, is_active, created_at)
      VALUES ('k1', 'c2', 'k', 'vk_x', 'h1', '[]', 'gone', true, 1), ('k2', 'c2', 'k', 'vk_x', 'h2', '[]', 'gone', true, 1), ('k3', 'c2', 'k', 'vk_x', 'h3', '[]', null, true, 1)`)
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => hubs[i % 2]!.remove('c2', 'gone', 5)))
    expect(results.filter((r) => r === null).length).toBe(3)
    expect(results.find((r) => r !== null)?.sort()).toEqual(['k1', 'k2'])
    const keys = await pools[1]!`SELECT id, is_active FROM api_keys ORDER BY id`
    expect(keys).toEqual([
      { id: 'k1', is_active: false },
      { id: 'k2', is_active: false },
      { id: 'k3', is_active: true },
    ])
  }, 60_000)
})
