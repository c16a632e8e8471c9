import { describe, expect, test } from 'bun:test'
import { type ClientsStore, createClientsStore, type NewClient, sqliteClients } from '../../../src/modules/clients/clients.store'
import { createClientsStorePg } from '../../../src/modules/clients/clients.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The clients store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): ClientsStore => (db.sqlite ? createClientsStore(sqliteClients(db.sqlite)) : createClientsStorePg(db.pg!))

const client = (over: Partial<NewClient> & { id: string }): NewClient => ({
  name: `client ${over.id}`,
  plan_type: 'free',
  subscription_status: 'none',
  max_devices: 1,
  max_users: 50,
  now: 1_700_000_000_000,
  ...over,
})

for (const engine of ENGINES) {
  describe(`clients store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    const store = () => storeOf(handle.db)

    test.skipIf(skip)(`a client reads back as written, the columns it was not given null ${engine.skipReason}`, async () => {
      const s = store()
      await s.insert(client({ id: 'c1', name: null }))
      expect(await s.byId('c1')).toEqual({
        id: 'c1',
        name: null,
        platform: null,
        plan_type: 'free',
        subscription_status: 'none',
        max_devices: 1,
        max_users: 50,
        rate_limit: null,
        max_devices_override: null,
        max_users_override: null,
        billing_email: null,
        created_at: 1_700_000_000_000,
      })
      expect(await s.byId('nope')).toBeNull()
    })

    test.skipIf(skip)(`a client id is unique ${engine.skipReason}`, async () => {
      const s = store()
      await expect(s.insert(client({ id: 'c1', name: 'twin' }))).rejects.toThrow()
      expect((await s.byId('c1'))!.name).toBeNull()
    })

    test.skipIf(skip)(`update writes the named columns of that client only, numbers and nulls as given ${engine.skipReason}`, async () => {
      const s = store()
      await s.insert(client({ id: 'c2', now: 1_700_000_000_500 }))
      await s.update('c1', { name: 'Acme', billing_email: 'bill@acme.test', max_devices: 25, max_devices_override: 25, rate_limit: 600 }, 1_700_000_001_000)
      const c1 = await s.byId('c1')
      expect(c1).toMatchObject({ name: 'Acme', billing_email: 'bill@acme.test', max_devices: 25, max_devices_override: 25, rate_limit: 600, max_users: 50 })
      // the other client is untouched
      expect(await s.byId('c2')).toMatchObject({ name: 'client c2', max_devices: 1, rate_limit: null, billing_email: null })
      await s.update('c1', { max_devices_override: null, rate_limit: null }, 1_700_000_002_000)
      expect(await s.byId('c1')).toMatchObject({ max_devices_override: null, rate_limit: null, max_devices: 25 })
      // nothing named, nothing written; an unknown client is no error and no row
      await s.update('c1', {}, 1_700_000_003_000)
      await s.update('c9', { name: 'ghost' }, 1_700_000_003_000)
      expect(await s.byId('c9')).toBeNull()
    })

    test.skipIf(skip)(`update refuses a column outside the writable set ${engine.skipReason}`, async () => {
      const s = store()
      await expect(s.update('c1', { id: 'c7' } as never, 1)).rejects.toThrow('not a writable column')
      expect((await s.byId('c1'))!.id).toBe('c1')
    })

    test.skipIf(skip)(`counts: every client, and those active or trialing ${engine.skipReason}`, async () => {
      const s = store()
      await s.insert(client({ id: 'c3', now: 1_700_000_000_500 }))
      await s.update('c1', { subscription_status: 'active' }, 1)
      await s.update('c2', { subscription_status: 'trialing' }, 1)
      await s.update('c3', { subscription_status: 'canceled' }, 1)
      expect(await s.count()).toBe(3)
      expect(await s.countPaying()).toBe(2)
    })

    test.skipIf(skip)(`page lists oldest first, ties by id, limited and offset ${engine.skipReason}`, async () => {
      const s = store()
      expect((await s.page(10, 0)).map((c) => c.id)).toEqual(['c1', 'c2', 'c3'])
      expect((await s.page(1, 1)).map((c) => c.id)).toEqual(['c2'])
      expect(await s.page(10, 3)).toEqual([])
      expect((await s.page(10, 0))[0]).toEqual((await s.byId('c1'))!)
    })

    test.skipIf(skip)(
      `applyPlan puts a plan in force on that client only; an operator's override wins over the plan's limit ${engine.skipReason}`,
      async () => {
        const s = store()
        await s.insert(client({ id: 'p1', now: 1_700_000_000_700 }))
        await s.insert(client({ id: 'p2', now: 1_700_000_000_700 }))
        await s.update('p1', { max_users_override: 7, max_users: 7 }, 1_700_000_000_800)
        const pro = { planType: 'pro', subscriptionStatus: 'active', maxDevices: 20, maxUsers: 100 }
        expect(await s.applyPlan('p1', pro, 1_700_000_000_900)).toBe(true)
        expect(await s.byId('p1')).toMatchObject({ plan_type: 'pro', subscription_status: 'active', max_devices: 20, max_users: 7, max_users_override: 7 })
        expect(await s.byId('p2')).toMatchObject({ plan_type: 'free', subscription_status: 'none', max_devices: 1, max_users: 50 })
        expect(await s.applyPlan('nope', pro, 1_700_000_000_900)).toBe(false)
        await s.update('p1', { max_users_override: null }, 1_700_000_001_000)
        await s.applyPlan('p1', { ...pro, subscriptionStatus: 'canceled' }, 1_700_000_001_100)
        expect(await s.byId('p1')).toMatchObject({ subscription_status: 'canceled', max_users: 100 })
      },
    )
  })
}
