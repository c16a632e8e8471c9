import { describe, expect, test } from 'bun:test'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { type BillingStore, createBillingStore, type PaymentInput, type SubscriptionFields } from '../../../src/modules/billing/billing.store'
import { createBillingStorePg } from '../../../src/modules/billing/billing.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The billing store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): BillingStore => (db.sqlite ? createBillingStore({ db: drizzle(db.sqlite), sqlite: db.sqlite }) : createBillingStorePg(db.pg!))

/** one column of one row, on either engine */
async function cell(db: EngineDb, text: string, params: string[]): Promise<unknown> {
  const [r] = await db.all(text, params)
  return r?.v ?? null
}

const T0 = 1_700_000_000_000
const fields = (over: Partial<SubscriptionFields> = {}): SubscriptionFields => ({
  providerSubscriptionId: 'sub_1',
  subscriptionStatus: 'active',
  planId: 'pro',
  amount: 900,
  currency: 'usd',
  interval: 'month',
  currentPeriodStart: T0,
  currentPeriodEnd: T0 + 30 * 86_400_000,
  cancelAtPeriodEnd: true,
  lastEventAt: T0 - 5,
  observedAt: T0,
  ...over,
})
const pay = (over: Partial<PaymentInput> & { providerInvoiceId: string; createdAt: number }): PaymentInput => ({
  clientId: 'c1',
  providerSubscriptionId: 'sub_1',
  amount: 900,
  currency: 'usd',
  status: 'paid',
  description: null,
  periodStart: null,
  periodEnd: null,
  invoiceUrl: null,
  invoicePdf: null,
  paidAt: null,
  ...over,
})

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2', 'c3']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
}

for (const engine of ENGINES) {
  describe(`billing store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: BillingStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`a client has no account until billing makes one; the first customer stored wins ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.account('c1')).toBeNull()
      expect(await store.setCustomerIfUnset('c1', 'cus_1', T0)).toBe('cus_1')
      expect(await store.setCustomerIfUnset('c1', 'cus_other', T0 + 1)).toBe('cus_1')
      expect(await store.account('c1')).toEqual({
        clientId: 'c1',
        providerCustomerId: 'cus_1',
        providerSubscriptionId: null,
        subscriptionStatus: 'none',
        planId: null,
        amount: null,
        currency: null,
        interval: null,
        currentPeriodStart: null,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        lastEventAt: null,
        observedAt: null,
        createdAt: T0,
        updatedAt: T0,
      })
      expect((await store.accountByCustomer('cus_1'))!.clientId).toBe('c1')
      expect(await store.accountByCustomer('cus_other')).toBeNull()
      expect(await store.account('c2')).toBeNull()
    })

    test.skipIf(skip)(`a subscription is written with its event claimed; the same event again changes nothing ${engine.skipReason}`, async () => {
      await ready()
      let seen: unknown = null
      const outcome = await store.applySubscription('c1', { id: 'evt_1', type: 'customer.subscription.updated' }, T0 + 10, (acc) => {
        seen = acc.providerCustomerId
        return fields()
      })
      expect(outcome).toBe('applied')
      expect(seen).toBe('cus_1')
      expect(await store.account('c1')).toMatchObject({ ...fields(), providerCustomerId: 'cus_1', updatedAt: T0 + 10 })
      expect(await store.eventSeen('evt_1')).toBe(true)
      expect(await cell(handle.db, 'SELECT outcome AS v FROM billing_events WHERE id = ?', ['evt_1'])).toBe('applied')
      let asked = false
      const again = await store.applySubscription('c1', { id: 'evt_1', type: 'customer.subscription.updated' }, T0 + 20, () => {
        asked = true
        return fields({ subscriptionStatus: 'canceled' })
      })
      expect([again, asked]).toEqual(['duplicate', false])
      expect((await store.account('c1'))!.subscriptionStatus).toBe('active')
    })

    test.skipIf(skip)(`a stale state writes nothing and records its event as ignored; without an event the account is made ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.applySubscription('c1', { id: 'evt_old', type: 'customer.subscription.updated' }, T0 + 30, () => null)).toBe('stale')
      expect(await cell(handle.db, 'SELECT outcome AS v FROM billing_events WHERE id = ?', ['evt_old'])).toBe('ignored')
      expect((await store.account('c1'))!.updatedAt).toBe(T0 + 10)
      expect(
        await store.applySubscription('c2', null, T0 + 40, (acc) => fields({ providerSubscriptionId: `${acc.clientId}-sub`, cancelAtPeriodEnd: false })),
      ).toBe('applied')
      expect(await store.account('c2')).toMatchObject({
        providerSubscriptionId: 'c2-sub',
        providerCustomerId: null,
        cancelAtPeriodEnd: false,
        createdAt: T0 + 40,
      })
    })

    test.skipIf(skip)(`an event id is recorded once; pruning forgets those received before the time given ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.recordEvent('evt_x', 'invoice.created', 'ignored', T0 + 50)).toBe(true)
      expect(await store.recordEvent('evt_x', 'invoice.created', 'applied', T0 + 60)).toBe(false)
      expect(await cell(handle.db, 'SELECT outcome AS v FROM billing_events WHERE id = ?', ['evt_x'])).toBe('ignored')
      expect(await store.eventSeen('evt_nope')).toBe(false)
      expect(await store.pruneEvents(T0 + 30)).toBe(1) // evt_1 (T0+10); evt_old (T0+30) is not before
      expect(await store.eventSeen('evt_1')).toBe(false)
      expect(await store.eventSeen('evt_old')).toBe(true)
      expect(await store.pruneEvents(T0 + 30)).toBe(0)
    })

    test.skipIf(skip)(`a payment is recorded with its event; decide sees the one recorded, keeps its id, or skips ${engine.skipReason}`, async () => {
      await ready()
      const ev = { id: 'evt_inv1', type: 'invoice.paid' }
      expect(
        await store.recordPayment('in_1', ev, T0 + 100, (existing) =>
          existing ? null : { id: 'pay_1', input: pay({ providerInvoiceId: 'in_1', createdAt: T0 + 1 }) },
        ),
      ).toBe('applied')
      expect(await store.recordPayment('in_1', ev, T0 + 101, () => ({ id: 'pay_x', input: pay({ providerInvoiceId: 'in_1', createdAt: 0 }) }))).toBe(
        'duplicate',
      )
      let before: unknown = null
      const updated = await store.recordPayment('in_1', null, T0 + 102, (existing) => {
        before = existing
        return {
          id: existing!.id,
          input: pay({ providerInvoiceId: 'in_1', createdAt: T0 + 1, description: 'Pro', paidAt: T0 + 2, periodStart: T0, periodEnd: T0 + 9 }),
        }
      })
      expect(updated).toBe('applied')
      expect(before).toMatchObject({ id: 'pay_1', description: null, updatedAt: T0 + 100 })
      expect(await store.recordPayment('in_1', null, T0 + 103, () => null)).toBe('skipped')
      const { items, total } = await store.listPayments('c1', { limit: 10, offset: 0 })
      expect(total).toBe(1)
      expect(items).toEqual([
        {
          id: 'pay_1',
          clientId: 'c1',
          providerInvoiceId: 'in_1',
          providerSubscriptionId: 'sub_1',
          amount: 900,
          currency: 'usd',
          status: 'paid',
          description: 'Pro',
          periodStart: T0,
          periodEnd: T0 + 9,
          invoiceUrl: null,
          invoicePdf: null,
          paidAt: T0 + 2,
          createdAt: T0 + 1,
          updatedAt: T0 + 102,
        },
      ])
    })

    test.skipIf(skip)(`payments list newest first, ties by id, in pages, within dates, of the client only ${engine.skipReason}`, async () => {
      await ready()
      for (const [inv, id, at] of [
        ['in_2', 'pay_2', T0 + 2],
        ['in_3', 'pay_3', T0 + 3],
        ['in_4', 'pay_4', T0 + 3],
        ['in_5', 'pay_5', T0 + 5],
      ] as const) {
        expect(await store.recordPayment(inv, null, T0, () => ({ id, input: pay({ providerInvoiceId: inv, createdAt: at }) }))).toBe('applied')
      }
      await store.recordPayment('in_c3', null, T0, () => ({ id: 'pay_c3', input: pay({ clientId: 'c3', providerInvoiceId: 'in_c3', createdAt: T0 + 4 }) }))
      const ids = async (q: Parameters<BillingStore['listPayments']>[1]) => {
        const page = await store.listPayments('c1', q)
        return [page.total, page.items.map((p) => p.id)]
      }
      expect(await ids({ limit: 10, offset: 0 })).toEqual([5, ['pay_5', 'pay_4', 'pay_3', 'pay_2', 'pay_1']])
      expect(await ids({ limit: 2, offset: 1 })).toEqual([5, ['pay_4', 'pay_3']])
      expect(await ids({ limit: 10, offset: 9 })).toEqual([5, []])
      expect(await ids({ limit: 10, offset: 0, start: T0 + 2, end: T0 + 3 })).toEqual([3, ['pay_4', 'pay_3', 'pay_2']])
      expect(await ids({ limit: 10, offset: 0, start: T0 + 4 })).toEqual([1, ['pay_5']])
      expect(await ids({ limit: 10, offset: 0, end: T0 + 1 })).toEqual([1, ['pay_1']])
      expect((await store.listPayments('c2', { limit: 10, offset: 0 })).total).toBe(0)
      expect((await store.listPayments('c3', { limit: 10, offset: 0 })).items.map((p) => p.id)).toEqual(['pay_c3'])
    })

    test.skipIf(skip)(`one event delivered several times at once is applied once ${engine.skipReason}`, async () => {
      await ready()
      const ev = { id: 'evt_race', type: 'customer.subscription.updated' }
      let writes = 0
      const outcomes = await Promise.all(
        [1, 2, 3, 4].map((i) =>
          store.applySubscription('c3', ev, T0 + 200 + i, () => {
            writes++
            return fields({ providerSubscriptionId: `sub_race_${i}` })
          }),
        ),
      )
      expect(outcomes.filter((o) => o === 'applied').length).toBe(1)
      expect(outcomes.filter((o) => o === 'duplicate').length).toBe(3)
      expect(writes).toBe(1)
    })
  })
}
