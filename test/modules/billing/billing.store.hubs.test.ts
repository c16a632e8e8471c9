import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { openPostgres } from '../../../src/db/pg/connection'
import { migratePostgres } from '../../../src/db/pg/migrate'
import type { BillingStore } from '../../../src/modules/billing/billing.store'
import { createBillingStorePg } from '../../../src/modules/billing/billing.store.pg'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'

/**
 * Two hubs on one PostgreSQL database, each with its own pool and store, handed the same Stripe
 * event at once (Stripe retrying while the first delivery is still in flight, through the proxy
 * to the other hub): the event changes things once.
 */
const pg = postgresForTests()
const T0 = 1_700_000_000_000

describe.skipIf(!pg.url)('billing events on two hubs sharing PostgreSQL', () => {
  let fresh: FreshDatabase
  const pools: SQL[] = []
  let hubs: [BillingStore, BillingStore]
  beforeAll(async () => {
    fresh = await pg.freshDatabase('vigil_billing_hubs')
    for (let i = 0; i < 2; i++) pools.push(openPostgres({ url: fresh.url, pool: 4 }))
    await migratePostgres(pools[0]!, 1)
    await pools[0]!.unsafe("INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'c1', 1, 1)")
    hubs = [createBillingStorePg(pools[0]!), createBillingStorePg(pools[1]!)]
  }, 60_000)
  afterAll(async () => {
    for (const p of pools) await p.close()
    await fresh?.drop()
  }, 60_000)

  test(`a subscription event delivered to both hubs at once is applied by one; the other answers duplicate ${pg.skipReason}`, async () => {
    const ev = { id: 'evt_both', type: 'customer.subscription.updated' }
    const decided: number[] = []
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        hubs[i % 2]!.applySubscription('c1', ev, T0 + i, (acc) => {
          decided.push(i)
          return {
            providerSubscriptionId: `sub_${i}`,
            subscriptionStatus: 'active',
            planId: 'pro',
            amount: 900,
            currency: 'usd',
            interval: 'month',
            currentPeriodStart: null,
            currentPeriodEnd: null,
            cancelAtPeriodEnd: false,
            lastEventAt: acc.lastEventAt,
            observedAt: T0,
          }
        }),
      ),
    )
    expect(outcomes.filter((o) => o === 'applied').length).toBe(1)
    expect(outcomes.filter((o) => o === 'duplicate').length).toBe(5)
    expect(decided.length).toBe(1)
    expect((await hubs[1].account('c1'))!.providerSubscriptionId).toBe(`sub_${decided[0]}`)
  }, 60_000)

  test(`an invoice event delivered to both hubs at once records one payment ${pg.skipReason}`, async () => {
    const ev = { id: 'evt_inv', type: 'invoice.paid' }
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        hubs[i % 2]!.recordPayment('in_1', ev, T0, (existing) => ({
          id: existing?.id ?? `pay_${i}`,
          input: {
            clientId: 'c1',
            providerInvoiceId: 'in_1',
            providerSubscriptionId: null,
            amount: 900 + i,
            currency: 'usd',
            status: 'paid',
            description: null,
            periodStart: null,
            periodEnd: null,
            invoiceUrl: null,
            invoicePdf: null,
            paidAt: T0,
            createdAt: T0,
          },
        })),
      ),
    )
    expect(outcomes.filter((o) => o === 'applied').length).toBe(1)
    const { items, total } = await hubs[0].listPayments('c1', { limit: 10, offset: 0 })
    expect(total).toBe(1)
    expect(items[0]!.id).toBe(`pay_${outcomes.indexOf('applied')}`)
  }, 60_000)
})
