import { and, count, desc, eq, gte, isNull, lte, type SQL } from 'drizzle-orm'
import type { DbHandle } from '../../db/connection'
import { billingAccounts, billingEvents, billingPayments } from './billing.table'

export type BillingAccount = typeof billingAccounts.$inferSelect
export type PaymentRow = typeof billingPayments.$inferSelect
export type PaymentInput = Omit<PaymentRow, 'id' | 'updatedAt'>

/** The subscription fields billing writes onto its account row. */
export type SubscriptionFields = Pick<
  BillingAccount,
  | 'providerSubscriptionId'
  | 'subscriptionStatus'
  | 'planId'
  | 'amount'
  | 'currency'
  | 'interval'
  | 'currentPeriodStart'
  | 'currentPeriodEnd'
  | 'cancelAtPeriodEnd'
  | 'lastEventAt'
  | 'observedAt'
>

/** The billing_accounts, billing_payments and billing_events tables. */
export function createBillingStore({ db, sqlite }: Pick<DbHandle, 'db' | 'sqlite'>) {
  const account = (clientId: string) => db.select().from(billingAccounts).where(eq(billingAccounts.clientId, clientId)).get()
  const ensureAccount = (clientId: string, now: number): BillingAccount => {
    db.insert(billingAccounts).values({ clientId, createdAt: now, updatedAt: now }).onConflictDoNothing().run()
    return account(clientId)!
  }
  return {
    /** runs `fn` in one IMMEDIATE transaction; `fn` is synchronous: never call the provider inside it */
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
    account,
    accountByCustomer: (customerId: string) => db.select().from(billingAccounts).where(eq(billingAccounts.providerCustomerId, customerId)).get(),
    ensureAccount,
    /** Stores the customer only if the client has none yet; returns the one that is stored (first wins). */
    setCustomerIfUnset(clientId: string, customerId: string, now: number): string {
      ensureAccount(clientId, now)
      db.update(billingAccounts)
        .set({ providerCustomerId: customerId, updatedAt: now })
        .where(and(eq(billingAccounts.clientId, clientId), isNull(billingAccounts.providerCustomerId)))
        .run()
      return account(clientId)!.providerCustomerId!
    },
    writeSubscription(clientId: string, fields: SubscriptionFields, now: number) {
      db.update(billingAccounts)
        .set({ ...fields, updatedAt: now })
        .where(eq(billingAccounts.clientId, clientId))
        .run()
    },
    /** Records an event id; false when it was already there (a replay, or a concurrent delivery). */
    recordEvent(id: string, type: string, outcome: string, now: number): boolean {
      // drizzle's bun-sqlite run() is typed void; the driver reports the change count.
      return (
        sqlite.run('INSERT INTO billing_events (id, type, outcome, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', [id, type, outcome, now]).changes >
        0
      )
    },
    eventSeen: (id: string) => !!db.select({ id: billingEvents.id }).from(billingEvents).where(eq(billingEvents.id, id)).get(),
    /** forgets the event ids received before `before`; returns how many */
    pruneEvents: (before: number) => sqlite.run('DELETE FROM billing_events WHERE received_at < ?', [before]).changes,
    paymentByInvoice: (invoiceId: string) => db.select().from(billingPayments).where(eq(billingPayments.providerInvoiceId, invoiceId)).get(),
    upsertPayment(id: string, p: PaymentInput, now: number) {
      db.insert(billingPayments)
        .values({ id, ...p, updatedAt: now })
        .onConflictDoUpdate({ target: billingPayments.providerInvoiceId, set: { ...p, updatedAt: now } })
        .run()
    },
    /** one page of the client's payments, newest first, and how many match */
    listPayments(clientId: string, q: { limit: number; offset: number; start?: number; end?: number }) {
      const where: SQL[] = [eq(billingPayments.clientId, clientId)]
      if (q.start !== undefined) where.push(gte(billingPayments.createdAt, q.start))
      if (q.end !== undefined) where.push(lte(billingPayments.createdAt, q.end))
      const cond = and(...where)
      const items = db
        .select()
        .from(billingPayments)
        .where(cond)
        .orderBy(desc(billingPayments.createdAt), desc(billingPayments.id))
        .limit(q.limit)
        .offset(q.offset)
        .all()
      const total = db.select({ n: count() }).from(billingPayments).where(cond).get()?.n ?? 0
      return { items, total }
    },
  }
}

export type BillingStore = ReturnType<typeof createBillingStore>
