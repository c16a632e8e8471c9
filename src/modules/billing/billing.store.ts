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

/** A provider event whose id is claimed in the same transaction as what it changes. */
export interface BillingEventRef {
  id: string
  type: string
}

/** The payment to write for an invoice (its id kept when it is recorded already), or null for none. */
export type PaymentDecision = { id: string; input: PaymentInput } | null

export interface PaymentsPage {
  limit: number
  offset: number
  start?: number
  end?: number
}

/**
 * The billing_accounts, billing_payments and billing_events tables, on either engine (this file:
 * SQLite; billing.store.pg.ts: PostgreSQL). What reads and writes together is one call, one
 * transaction: a provider event's id is claimed there with a conditional insert, so an event
 * delivered twice, to one hub or to two at once, changes things once. The `decide` callbacks are
 * synchronous and pure: they run inside the transaction, never call the provider.
 */
export interface BillingStore {
  account(clientId: string): Promise<BillingAccount | null>
  accountByCustomer(customerId: string): Promise<BillingAccount | null>
  /** stores the customer only if the client has none yet; returns the one that is stored (first wins) */
  setCustomerIfUnset(clientId: string, customerId: string, now: number): Promise<string>
  /**
   * In one transaction: the event's id claimed (if any; taken already: `duplicate`, nothing
   * written), the client's account made if missing and locked, `decide` asked for the fields to
   * write (null: the state is older than the stored one, `stale`, the event recorded as ignored).
   */
  applySubscription(
    clientId: string,
    event: BillingEventRef | null,
    now: number,
    decide: (acc: BillingAccount) => SubscriptionFields | null,
  ): Promise<'applied' | 'stale' | 'duplicate'>
  /** records an event id with its outcome; false when it was there already (a replay, or a concurrent delivery) */
  recordEvent(id: string, type: string, outcome: string, now: number): Promise<boolean>
  eventSeen(id: string): Promise<boolean>
  /** forgets the event ids received before `before`; returns how many */
  pruneEvents(before: number): Promise<number>
  /**
   * In one transaction: the event's id claimed (if any; taken already: `duplicate`), the
   * invoice's recorded payment read and `decide` asked what to write (null: nothing, `skipped`).
   */
  recordPayment(
    invoiceId: string,
    event: BillingEventRef | null,
    now: number,
    decide: (existing: PaymentRow | null) => PaymentDecision,
  ): Promise<'applied' | 'skipped' | 'duplicate'>
  /** one page of the client's payments, newest first (ties by id), and how many match */
  listPayments(clientId: string, q: PaymentsPage): Promise<{ items: PaymentRow[]; total: number }>
}

/** The store on SQLite: drizzle's statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createBillingStore({ db, sqlite }: Pick<DbHandle, 'db' | 'sqlite'>): BillingStore {
  const account = (clientId: string) => db.select().from(billingAccounts).where(eq(billingAccounts.clientId, clientId)).get() ?? null
  const ensureAccount = (clientId: string, now: number): BillingAccount => {
    db.insert(billingAccounts).values({ clientId, createdAt: now, updatedAt: now }).onConflictDoNothing().run()
    return account(clientId)!
  }
  const recordEvent = (id: string, type: string, outcome: string, now: number): boolean =>
    sqlite.run('INSERT INTO billing_events (id, type, outcome, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', [id, type, outcome, now]).changes > 0
  const setOutcome = (id: string, outcome: string) => sqlite.run('UPDATE billing_events SET outcome = ? WHERE id = ?', [outcome, id])
  const paymentByInvoice = (invoiceId: string) => db.select().from(billingPayments).where(eq(billingPayments.providerInvoiceId, invoiceId)).get() ?? null
  /** IMMEDIATE: no other writer between the claim, the read and the write */
  const immediate = <T>(fn: () => T): T => sqlite.transaction(fn).immediate()

  return {
    account: async (clientId) => account(clientId),
    accountByCustomer: async (customerId) => db.select().from(billingAccounts).where(eq(billingAccounts.providerCustomerId, customerId)).get() ?? null,
    setCustomerIfUnset: async (clientId, customerId, now) =>
      immediate(() => {
        ensureAccount(clientId, now)
        db.update(billingAccounts)
          .set({ providerCustomerId: customerId, updatedAt: now })
          .where(and(eq(billingAccounts.clientId, clientId), isNull(billingAccounts.providerCustomerId)))
          .run()
        return account(clientId)!.providerCustomerId!
      }),
    applySubscription: async (clientId, event, now, decide) =>
      immediate(() => {
        if (event && !recordEvent(event.id, event.type, 'applied', now)) return 'duplicate'
        const fields = decide(ensureAccount(clientId, now))
        if (!fields) {
          if (event) setOutcome(event.id, 'ignored')
          return 'stale'
        }
        db.update(billingAccounts)
          .set({ ...fields, updatedAt: now })
          .where(eq(billingAccounts.clientId, clientId))
          .run()
        return 'applied'
      }),
    recordEvent: async (id, type, outcome, now) => recordEvent(id, type, outcome, now),
    eventSeen: async (id) => !!db.select({ id: billingEvents.id }).from(billingEvents).where(eq(billingEvents.id, id)).get(),
    pruneEvents: async (before) => sqlite.run('DELETE FROM billing_events WHERE received_at < ?', [before]).changes,
    recordPayment: async (invoiceId, event, now, decide) =>
      immediate(() => {
        if (event && !recordEvent(event.id, event.type, 'applied', now)) return 'duplicate'
        const write = decide(paymentByInvoice(invoiceId))
        if (!write) return 'skipped'
        db.insert(billingPayments)
          .values({ id: write.id, ...write.input, updatedAt: now })
          .onConflictDoUpdate({ target: billingPayments.providerInvoiceId, set: { ...write.input, updatedAt: now } })
          .run()
        return 'applied'
      }),
    async listPayments(clientId, q) {
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
