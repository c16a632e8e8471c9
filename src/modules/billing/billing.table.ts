import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'

/**
 * A client's state at the payment provider, one row per client, created on first checkout or
 * event. billing.plan-writer.ts puts the plan it implies in force through the clients domain.
 */
export const billingAccounts = sqliteTable('billing_accounts', {
  clientId: text('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  /** the Stripe customer, created once per client and reused for every checkout */
  providerCustomerId: text('provider_customer_id').unique(),
  providerSubscriptionId: text('provider_subscription_id'),
  /** Stripe's subscription status, or `none` */
  subscriptionStatus: text('subscription_status').notNull().default('none'),
  planId: text('plan_id'),
  amount: integer('amount'),
  currency: text('currency'),
  interval: text('interval'),
  currentPeriodStart: integer('current_period_start'),
  currentPeriodEnd: integer('current_period_end'),
  cancelAtPeriodEnd: integer('cancel_at_period_end', { mode: 'boolean' }).notNull().default(false),
  /** `created` (ms) of the newest provider event applied for the current subscription: older ones are stale */
  lastEventAt: integer('last_event_at'),
  /** when (our clock, ms) the applied subscription state was read from Stripe: a slower, older read never wins */
  observedAt: integer('observed_at'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

/** Payments recorded from provider invoices (invoice.paid / invoice.payment_failed, or a sync). */
export const billingPayments = sqliteTable(
  'billing_payments',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    providerInvoiceId: text('provider_invoice_id').notNull().unique(),
    providerSubscriptionId: text('provider_subscription_id'),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    /** paid | failed | open | void | uncollectible */
    status: text('status').notNull(),
    description: text('description'),
    periodStart: integer('period_start'),
    periodEnd: integer('period_end'),
    invoiceUrl: text('invoice_url'),
    invoicePdf: text('invoice_pdf'),
    paidAt: integer('paid_at'),
    /** the invoice's creation time at the provider: what the list sorts and filters by */
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('billing_payments_client_created').on(t.clientId, t.createdAt)],
)

/** Provider event ids already applied: a redelivered event is acknowledged and changes nothing. */
export const billingEvents = sqliteTable(
  'billing_events',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    /** applied | ignored (a kind we do not handle, a stale event, an unknown client) */
    outcome: text('outcome').notNull(),
    receivedAt: integer('received_at').notNull(),
  },
  (t) => [index('billing_events_received').on(t.receivedAt)],
)
