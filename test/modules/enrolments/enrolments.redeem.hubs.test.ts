import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { openPostgres } from '../../../src/db/pg/connection'
import { migratePostgres } from '../../../src/db/pg/migrate'
import type { EnrolmentsStore, Redemption } from '../../../src/modules/enrolments/enrolments.store'
import { createEnrolmentsStorePg } from '../../../src/modules/enrolments/enrolments.store.pg'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'

/**
 * Two hubs on one PostgreSQL database, each with its own pool and store, redeeming one token at
 * once: exactly one spends it, with one device and one key; the other is refused.
 */
const pg = postgresForTests()
const NOW = 1_700_000_000_000
const facts = { hostname: 'h', os: 'linux', os_version: '6', arch: 'x86_64', mac_address: null }
const redemption = (i: number, tokenHash: string, max = 10): Redemption => ({
  tokenHash,
  clientId: 'c1',
  now: NOW,
  device: { fingerprint: `fp-${tokenHash}-${i}`, facts, max, newId: `dev-${tokenHash}-${i}`, now: NOW },
  key: { id: `key-${tokenHash}-${i}`, name: 'k', key_prefix: 'vk_x', key_hash: `kh-${tokenHash}-${i}`, scopes: '[]', created_at: NOW, expires_at: null },
})

describe.skipIf(!pg.url)('enrolments redeemed on two hubs sharing PostgreSQL', () => {
  let fresh: FreshDatabase
  const pools: SQL[] = []
  let hubs: [EnrolmentsStore, EnrolmentsStore]
  beforeAll(async () => {
    fresh = await pg.freshDatabase('vigil_enrol_hubs')
    for (let i = 0; i < 2; i++) pools.push(openPostgres({ url: fresh.url, pool: 4 }))
    await migratePostgres(pools[0]!, 1)
    await pools[0]!.unsafe("INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'c1', 1, 1)")
    hubs = [createEnrolmentsStorePg(pools[0]!), createEnrolmentsStorePg(pools[1]!)]
  }, 60_000)
  afterAll(async () => {
    for (const p of pools) await p.close()
    await fresh?.drop()
  }, 60_000)

  const token = (id: string) => hubs[0].insert({ id, client_id: 'c1', token_hash: id, created_by: 'u', created_at: NOW, expires_at: NOW + 3_600_000 })
  const count = async (table: string) => Number((await pools[1]!.unsafe(`SELECT count(*) AS n FROM ${table}`))[0].n)

  test(`one token redeemed on both hubs at once is spent by one: one device, one key ${pg.skipReason}`, async () => {
    await token('t1')
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => hubs[i % 2]!.redeem(redemption(i, 't1'))))
    const won = results.filter((r) => 'created' in r)
    expect(won.length).toBe(1)
    expect(results.filter((r) => 'refused' in r && r.refused === 'invalid_enrolment').length).toBe(7)
    expect(await count('devices')).toBe(1)
    expect(await count('api_keys')).toBe(1)
    const [spent] = await pools[1]!`SELECT device_id FROM enrolments WHERE id = 't1'`
    expect(spent.device_id).toBe((won[0] as { deviceId: string }).deviceId)
  }, 60_000)

  test(`tokens redeemed on both hubs at once stop at the client's device limit; the refused stay unspent ${pg.skipReason}`, async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `t2-${i}`)
    for (const id of ids) await token(id)
    // one device already (the first test's): a limit of 3 lets two of six in
    const results = await Promise.all(ids.map((id, i) => hubs[i % 2]!.redeem(redemption(0, id, 3))))
    expect(results.filter((r) => 'created' in r).length).toBe(2)
    expect(results.filter((r) => 'refused' in r && r.refused === 'device_limit_reached').length).toBe(4)
    expect(await count('devices')).toBe(3)
    expect(await count('api_keys')).toBe(3)
    const unspent = await pools[0]!`SELECT count(*)::int AS n FROM enrolments WHERE id LIKE 't2-%' AND used_at IS NULL`
    expect(unspent[0].n).toBe(4)
  }, 60_000)
})
