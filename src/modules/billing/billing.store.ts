import { and, count, desc, eq, gte, isNull, lte, type SQL } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { Db } from '../../db/connection'
import { clients } from '../clients/clients.table'
import { billingAccounts, billingEvents, billingPayments } from './billing.table'

export type BillingAccount = typeof billingAccounts.$inferSelect
export type PaymentRow = typeof billingPayments.$inferSelect
export type PaymentInput = Omit<PaymentRow, 'id' | 'updatedAt'>

/** The subscription fields billing writes onto its account row. */
export type SubscriptionFields = Pick<
  BillingAccount,
  | 'providerSubscriptionId' | 'subscriptionStatus' | 'planId' | 'amount' | 'currency' | 'interval'
  | 'currentPeriodStart' | 'currentPeriodEnd' | 'cancelAtPeriodEnd' | 'lastEventAt' | 'observedAt'
>

export const getAccount = (db: Db, clientId: string) =>
  db.select().from(billingAccounts).where(eq(billingAccounts.clientId, clientId)).get()

export const accountByCustomer = (db: Db, customerId: string) =>
  db.select().from(billingAccounts).where(eq(billingAccounts.providerCustomerId, customerId)).get()

export function ensureAccount(db: Db, clientId: string, now: number): BillingAccount {
  db.insert(billingAccounts).values({ clientId, createdAt: now, updatedAt: now }).onConflictDoNothing().run()
  return getAccount(db, clientId)!
}

/** Stores the customer only if the client has none yet; returns the one that is stored (first wins). */
export function setCustomerIfUnset(db: Db, clientId: string, customerId: string, now: number): string {
  ensureAccount(db, clientId, now)
  db.update(billingAccounts)
    .set({ providerCustomerId: customerId, updatedAt: now })
    .where(and(eq(billingAccounts.clientId, clientId), isNull(billingAccounts.providerCustomerId)))
    .run()
  return getAccount(db, clientId)!.providerCustomerId!
}

export function writeSubscription(db: Db, clientId: string, fields: SubscriptionFields, now: number) {
  db.update(billingAccounts).set({ ...fields, updatedAt: now }).where(eq(billingAccounts.clientId, clientId)).run()
}

/** The client row fields billing reads (it is also their only writer besides the operator). */
export const clientOf = (db: Db, clientId: string) =>
  db
    .select({ id: clients.id, name: clients.name, billingEmail: clients.billingEmail, maxDevices: clients.maxDevices, planType: clients.planType })
    .from(clients)
    .where(eq(clients.id, clientId))
    .get()

export function writeClientPlan(
  db: Db,
  clientId: string,
  plan: { planType: string; subscriptionStatus: string; maxDevices: number; maxUsers: number },
  now: number,
) {
  db.update(clients).set({ ...plan, updatedAt: now }).where(eq(clients.id, clientId)).run()
}

/** Records an event id; false when it was already there (a replay, or a concurrent delivery). */
export function recordEvent(sqlite: Database, id: string, type: string, outcome: string, now: number): boolean {
  // drizzle's bun-sqlite run() is typed void; the driver reports the change count.
  return sqlite.run('INSERT INTO billing_events (id, type, outcome, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', [id, type, outcome, now]).changes > 0
}

export const eventSeen = (db: Db, id: string) =>
  !!db.select({ id: billingEvents.id }).from(billingEvents).where(eq(billingEvents.id, id)).get()

export const pruneEvents = (sqlite: Database, before: number) => sqlite.run('DELETE FROM billing_events WHERE received_at < ?', [before]).changes

export const paymentByInvoice = (db: Db, invoiceId: string) =>
  db.select().from(billingPayments).where(eq(billingPayments.providerInvoiceId, invoiceId)).get()

export function upsertPayment(db: Db, id: string, p: PaymentInput, now: number) {
  db.insert(billingPayments)
    .values({ id, ...p, updatedAt: now })
    .onConflictDoUpdate({ target: billingPayments.providerInvoiceId, set: { ...p, updatedAt: now } })
    .run()
}

export function listPayments(db: Db, clientId: string, q: { limit: number; offset: number; start?: number; end?: number }) {
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
}
