import { describe, expect, test } from 'bun:test'
import { type ApiKeysStore, createApiKeysStore, sqliteApiKeys } from '../../../src/modules/api-keys/api-keys.store'
import { createApiKeysStorePg } from '../../../src/modules/api-keys/api-keys.store.pg'
import { createDevicesStore, type DeviceRegistration, type DevicesStore, sqliteDevices } from '../../../src/modules/devices/devices.store'
import { createDevicesStorePg } from '../../../src/modules/devices/devices.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The devices store answers the same on SQLite and on PostgreSQL. */
const keysOf = (db: EngineDb): ApiKeysStore => (db.sqlite ? createApiKeysStore(sqliteApiKeys(db.sqlite)) : createApiKeysStorePg(db.pg!))
const storeOf = (db: EngineDb): DevicesStore => (db.sqlite ? createDevicesStore(sqliteDevices(db.sqlite)) : createDevicesStorePg(db.pg!))

const T0 = 1_700_000_000_000
const facts = { hostname: 'web-1', os: 'linux', os_version: '6.8', arch: 'x86_64', mac_address: null }
const reg = (over: Partial<DeviceRegistration> & { newId: string; fingerprint: string }): DeviceRegistration => ({
  clientId: 'c1',
  boundTo: null,
  facts,
  max: 10,
  now: T0,
  ...over,
})

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2', 'c3', 'c4']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
}

for (const engine of ENGINES) {
  describe(`devices store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: DevicesStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`a registration makes a device with a seq; it reads back by id and fingerprint within its client only ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.register(reg({ newId: 'd1', fingerprint: 'fp1', facts: { ...facts, mac_address: 'aa:bb' } }))).toEqual({ id: 'd1', created: true })
      const d1 = await store.byId('c1', 'd1')
      expect(d1).toEqual({
        id: 'd1',
        client_id: 'c1',
        fingerprint: 'fp1',
        hostname: 'web-1',
        os: 'linux',
        os_version: '6.8',
        arch: 'x86_64',
        mac_address: 'aa:bb',
        created_at: T0,
        updated_at: T0,
        last_seen_at: null,
        seq: expect.any(Number),
        name: null,
        tags: '[]',
      })
      expect(await store.byFingerprint('c1', 'fp1')).toEqual(d1)
      expect(await store.byId('c2', 'd1')).toBeNull()
      expect(await store.byFingerprint('c2', 'fp1')).toBeNull()
      expect(await store.byId('c1', 'nope')).toBeNull()
    })

    test.skipIf(skip)(
      `the same fingerprint updates the device's facts and keeps its id and seq; a bound key may only re-register its own ${engine.skipReason}`,
      async () => {
        await ready()
        const before = (await store.byId('c1', 'd1'))!
        const again = await store.register(reg({ newId: 'unused', fingerprint: 'fp1', facts: { ...facts, hostname: 'web-2', mac_address: null }, now: T0 + 5 }))
        expect(again).toEqual({ id: 'd1', created: false })
        const after = (await store.byId('c1', 'd1'))!
        expect(after).toEqual({ ...before, hostname: 'web-2', mac_address: null, updated_at: T0 + 5 })
        expect(await store.byId('c1', 'unused')).toBeNull()
        // a key bound to d1 re-registers d1; bound to another device, it can neither update d1 nor make a new one
        expect(await store.register(reg({ newId: 'x', fingerprint: 'fp1', boundTo: 'd1' }))).toEqual({ id: 'd1', created: false })
        expect(await store.register(reg({ newId: 'x', fingerprint: 'fp1', boundTo: 'd9', facts: { ...facts, hostname: 'evil' } }))).toEqual({
          refused: 'device_mismatch',
        })
        expect(await store.register(reg({ newId: 'x', fingerprint: 'fp-new', boundTo: 'd1' }))).toEqual({ refused: 'device_mismatch' })
        expect((await store.byId('c1', 'd1'))!.hostname).toBe('web-1')
        expect(await store.countForClient('c1')).toBe(1)
        // the same fingerprint in another client is another device
        expect(await store.register(reg({ clientId: 'c2', newId: 'd2', fingerprint: 'fp1' }))).toEqual({ id: 'd2', created: true })
      },
    )

    test.skipIf(skip)(
      `a new device past the client's limit is refused and nothing is written; re-registering at the limit is not ${engine.skipReason}`,
      async () => {
        await ready()
        expect(await store.register(reg({ newId: 'd3', fingerprint: 'fp3', max: 1 }))).toEqual({ refused: 'device_limit_reached' })
        expect(await store.byId('c1', 'd3')).toBeNull()
        expect(await store.register(reg({ newId: 'd3', fingerprint: 'fp1', max: 1, now: T0 }))).toEqual({ id: 'd1', created: false })
        expect(await store.register(reg({ newId: 'd3', fingerprint: 'fp3', max: 2, now: T0 + 10 }))).toEqual({ id: 'd3', created: true })
        expect(await store.countForClient('c1')).toBe(2)
      },
    )

    test.skipIf(skip)(`registrations of one client at once never overshoot its limit ${engine.skipReason}`, async () => {
      await ready()
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.register(reg({ clientId: 'c3', newId: `r${i}`, fingerprint: `rf${i}`, max: 2 }))),
      )
      expect(results.filter((r) => 'created' in r).length).toBe(2)
      expect(results.filter((r) => 'refused' in r && r.refused === 'device_limit_reached').length).toBe(4)
      expect(await store.countForClient('c3')).toBe(2)
    })

    test.skipIf(skip)(`a client's devices are listed oldest first, ties by id; counts per client and in all ${engine.skipReason}`, async () => {
      await ready()
      await store.register(reg({ newId: 'd0', fingerprint: 'fp0', now: T0 + 10 })) // same time as d3, smaller id
      expect((await store.listForClient('c1')).map((d) => d.id)).toEqual(['d1', 'd0', 'd3'])
      expect((await store.listForClient('c2')).map((d) => d.id)).toEqual(['d2'])
      expect(await store.listForClient('c4')).toEqual([])
      expect(await store.countForClient('c1')).toBe(3)
      expect(await store.countForClient('c4')).toBe(0)
      expect(await store.countAll()).toBe(6)
    })

    test.skipIf(skip)(
      `a change sets the name and tags given, keeps those left out, and never touches another client's device ${engine.skipReason}`,
      async () => {
        await ready()
        const named = await store.change('c1', 'd3', { name: 'db primary' }, T0 + 20)
        expect(named).toMatchObject({ id: 'd3', name: 'db primary', tags: '[]', updated_at: T0 + 20 })
        const tagged = await store.change('c1', 'd3', { tags: ['prod', 'db'] }, T0 + 30)
        expect(tagged).toMatchObject({ name: 'db primary', tags: '["prod","db"]', updated_at: T0 + 30 })
        expect(await store.change('c1', 'd3', { name: null, tags: [] }, T0 + 40)).toMatchObject({ name: null, tags: '[]', updated_at: T0 + 40 })
        expect(await store.change('c1', 'd3', {}, T0 + 50)).toMatchObject({ updated_at: T0 + 40 })
        expect(await store.change('c2', 'd3', { name: 'stolen' }, T0 + 60)).toBeNull()
        expect(await store.change('c1', 'nope', { name: 'x' }, T0 + 60)).toBeNull()
        expect((await store.byId('c1', 'd3'))!.name).toBeNull()
      },
    )

    test.skipIf(skip)(`seqs, labels, clients with devices and last reports; markSeen writes the device of that seq ${engine.skipReason}`, async () => {
      await ready()
      const seqOf = async (c: string, id: string) => (await store.byId(c, id))!.seq
      const [s1, s0, s3, s2] = [await seqOf('c1', 'd1'), await seqOf('c1', 'd0'), await seqOf('c1', 'd3'), await seqOf('c2', 'd2')]
      expect(new Set([s1, s0, s3, s2]).size).toBe(4)
      const all = await store.seqs()
      expect(all).toEqual([...all].sort((a, b) => a - b))
      expect(all).toEqual(expect.arrayContaining([s1, s0, s3, s2]))
      expect(all.length).toBe(6)
      expect(await store.labels('c1')).toEqual([
        { id: 'd1', clientId: 'c1', hostname: 'web-1', seq: s1 },
        { id: 'd0', clientId: 'c1', hostname: 'web-1', seq: s0 },
        { id: 'd3', clientId: 'c1', hostname: 'web-1', seq: s3 },
      ])
      expect((await store.labels(null)).map((l) => l.id)).toEqual(['d1', 'd0', 'd3', 'd2', ...(await store.listForClient('c3')).map((d) => d.id)])
      expect(await store.labels('c4')).toEqual([])
      expect(await store.clientsWithDevices()).toEqual(['c1', 'c2', 'c3'])
      await store.markSeen(s3, T0 + 99)
      expect((await store.byId('c1', 'd3'))!.last_seen_at).toBe(T0 + 99)
      const seen = await store.lastSeenAll()
      expect(seen.length).toBe(6)
      expect(seen.find((r) => r.id === 'd3')).toEqual({ id: 'd3', clientId: 'c1', seq: s3, lastSeenAt: T0 + 99 })
      expect(seen.find((r) => r.id === 'd2')).toEqual({ id: 'd2', clientId: 'c2', seq: s2, lastSeenAt: null })
    })

    test.skipIf(skip)(
      `ref names a device of its client only; a device made without a seq gets a new one on first use, and keeps it ${engine.skipReason}`,
      async () => {
        await ready()
        const s2 = (await store.byId('c2', 'd2'))!.seq
        expect(await store.ref('c2', 'd2')).toEqual({ id: 'd2', clientId: 'c2', seq: s2 })
        expect(await store.ref('c1', 'd2')).toBeNull()
        await handle.db.exec("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES ('old', 'c4', 'fp-old', 1, 1, '[]')")
        expect((await store.byId('c4', 'old'))!.seq).toBeNull()
        expect(await store.labels('c4')).toEqual([]) // no seq, no metric rows to label
        const first = (await store.ref('c4', 'old'))!
        expect(first.seq).toBeGreaterThan(Math.max(...(await store.seqs()).filter((s) => s !== first.seq)))
        expect(await store.ref('c4', 'old')).toEqual(first)
        expect((await store.byId('c4', 'old'))!.seq).toBe(first.seq)
      },
    )

    test.skipIf(skip)(`onlyDevice is the client's device when it has exactly one ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.onlyDevice('c2')).toEqual({ id: 'd2', clientId: 'c2', seq: (await store.byId('c2', 'd2'))!.seq })
      expect(await store.onlyDevice('c1')).toBeNull() // several
      await handle.db.exec("INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c5', 'c5', 1, 1)")
      expect(await store.onlyDevice('c5')).toBeNull() // none
    })

    test.skipIf(skip)(
      `remove deletes a device of its own client only and revokes its keys with it; a seq is never handed out again ${engine.skipReason}`,
      async () => {
        await ready()
        const s3 = (await store.byId('c1', 'd3'))!.seq
        const keys = keysOf(handle.db)
        const key = (id: string, client: string, device: string | null) =>
          keys.insert({
            id,
            client_id: client,
            name: 'k',
            key_prefix: 'vk_x',
            key_hash: `hash-${id}`,
            scopes: '[]',
            device_id: device,
            created_at: 1,
            expires_at: null,
          })
        const isActive = async (id: string) => (await keys.byId('c1', id))!.is_active === 1
        await key('k-d3a', 'c1', 'd3')
        await key('k-d3b', 'c1', 'd3')
        await key('k-d1', 'c1', 'd1')
        await key('k-all', 'c1', null)
        const active = async () => {
          const rows: string[] = []
          for (const id of ['k-d3a', 'k-d3b', 'k-d1', 'k-all']) if (await isActive(id)) rows.push(id)
          return rows
        }
        expect(await store.remove('c2', 'd3', T0 + 65)).toBeNull()
        expect(await store.byId('c1', 'd3')).not.toBeNull()
        expect(await active()).toEqual(['k-d3a', 'k-d3b', 'k-d1', 'k-all'])
        expect((await store.remove('c1', 'd3', T0 + 65))?.sort()).toEqual(['k-d3a', 'k-d3b'])
        expect(await store.byId('c1', 'd3')).toBeNull()
        // the client's other keys live on; the revoked ones keep their (now dangling) device only as history
        expect(await active()).toEqual(['k-d1', 'k-all'])
        expect(await store.remove('c1', 'd3', T0 + 66)).toBeNull()
        const highest = Math.max(...(await store.seqs()), s3)
        expect(await store.register(reg({ newId: 'd5', fingerprint: 'fp3', now: T0 + 70 }))).toEqual({ id: 'd5', created: true })
        expect((await store.byId('c1', 'd5'))!.seq).toBeGreaterThan(highest)
      },
    )
  })
}
