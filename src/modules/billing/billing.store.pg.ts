import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import type { BillingAccount, BillingStore, PaymentRow } from './billing.store'

const ACCOUNT = `client_id, provider_customer_id, provider_subscription_id, subscription_status, plan_id, amount, currency, interval,
  current_period_start, current_period_end, cancel_at_period_end, last_event_at, observed_at, created_at, updated_at`

const PAYMENT = `id, client_id, provider_invoice_id, provider_subscription_id, amount, currency, status, description, period_start,
  period_end, invoice_url, invoice_pdf, paid_at, created_at, updated_at`

const str = (v: unknown) => (v as string | null) ?? null

const account = (r: Raw): BillingAccount => ({
  clientId: r.client_id as string,
  providerCustomerId: str(r.provider_customer_id),
  providerSubscriptionId: str(r.provider_subscription_id),
  subscriptionStatus: r.subscription_status as string,
  planId: str(r.plan_id),
  amount: numOrNull(r.amount),
  currency: str(r.currency),
  interval: str(r.interval),
  currentPeriodStart: numOrNull(r.current_period_start),
  currentPeriodEnd: numOrNull(r.current_period_end),
  cancelAtPeriodEnd: r.cancel_at_period_end === true,
  lastEventAt: numOrNull(r.last_event_at),
  observedAt: numOrNull(r.observed_at),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
})

const payment = (r: Raw): PaymentRow => ({
  id: r.id as string,
  clientId: r.client_id as string,
  providerInvoiceId: r.provider_invoice_id as string,
  providerSubscriptionId: str(r.provider_subscription_id),
  amount: num(r.amount),
  currency: r.currency as string,
  status: r.status as string,
  description: str(r.description),
  periodStart: numOrNull(r.period_start),
  periodEnd: numOrNull(r.period_end),
  invoiceUrl: str(r.invoice_url),
  invoicePdf: str(r.invoice_pdf),
  paidAt: numOrNull(r.paid_at),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
})

/** The event's id taken by this transaction; false when another took it (a replay, or another hub at once). */
async function claim(tx: SQL, event: { id: string; type: string }, now: number): Promise<boolean> {
  // a second hub inserting the same id waits on the first's uncommitted row, then finds the conflict
  const rows: Raw[] = await tx`INSERT INTO billing_events (id, type, outcome, received_at) VALUES (${event.id}, ${event.type}, 'applied', ${now})
    ON CONFLICT DO NOTHING RETURNING id`
  return rows.length > 0
}

/** The client's account row, made if missing, locked until the transaction ends. */
async function lockedAccount(tx: SQL, clientId: string, now: number): Promise<BillingAccount> {
  await tx`INSERT INTO billing_accounts (client_id, created_at, updated_at) VALUES (${clientId}, ${now}, ${now}) ON CONFLICT DO NOTHING`
  const [r]: Raw[] = await tx.unsafe(`SELECT ${ACCOUNT} FROM billing_accounts WHERE client_id = $1 FOR UPDATE`, [clientId])
  return account(r!)
}

/** The billing tables on PostgreSQL: the same answers as the SQLite store (billing.store.contract.test.ts). */
export function createBillingStorePg(sql: SQL): BillingStore {
  return {
    async account(clientId) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${ACCOUNT} FROM billing_accounts WHERE client_id = $1`, [clientId])
      return r ? account(r) : null
    },
    async accountByCustomer(customerId) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${ACCOUNT} FROM billing_accounts WHERE provider_customer_id = $1`, [customerId])
      return r ? account(r) : null
    },
    setCustomerIfUnset(clientId, customerId, now) {
      return sql.begin(async (tx) => {
        const acc = await lockedAccount(tx, clientId, now)
        if (acc.providerCustomerId) return acc.providerCustomerId
        await tx`UPDATE billing_accounts SET provider_customer_id = ${customerId}, updated_at = ${now} WHERE client_id = ${clientId}`
        return customerId
      })
    },
    applySubscription(clientId, event, now, decide) {
      return sql.begin(async (tx) => {
        if (event && !(await claim(tx, event, now))) return 'duplicate' as const
        const f = decide(await lockedAccount(tx, clientId, now))
        if (!f) {
          if (event) await tx`UPDATE billing_events SET outcome = 'ignored' WHERE id = ${event.id}`
          return 'stale' as const
        }
        await tx`UPDATE billing_accounts SET provider_subscription_id = ${f.providerSubscriptionId}, subscription_status = ${f.subscriptionStatus},
          plan_id = ${f.planId}, amount = ${f.amount}, currency = ${f.currency}, interval = ${f.interval},
          current_period_start = ${f.currentPeriodStart}, current_period_end = ${f.currentPeriodEnd}, cancel_at_period_end = ${f.cancelAtPeriodEnd},
          last_event_at = ${f.lastEventAt}, observed_at = ${f.observedAt}, updated_at = ${now}
          WHERE client_id = ${clientId}`
        return 'applied' as const
      })
    },
    async recordEvent(id, type, outcome, now) {
      const rows: Raw[] = await sql`INSERT INTO billing_events (id, type, outcome, received_at) VALUES (${id}, ${type}, ${outcome}, ${now})
        ON CONFLICT DO NOTHING RETURNING id`
      return rows.length > 0
    },
    async eventSeen(id) {
      const rows: Raw[] = await sql`SELECT 1 FROM billing_events WHERE id = ${id}`
      return rows.length > 0
    },
    async pruneEvents(before) {
      const rows: Raw[] = await sql`DELETE FROM billing_events WHERE received_at < ${before} RETURNING id`
      return rows.length
    },
    recordPayment(invoiceId, event, now, decide) {
      return sql.begin(async (tx) => {
        if (event && !(await claim(tx, event, now))) return 'duplicate' as const
        const [r]: Raw[] = await tx.unsafe(`SELECT ${PAYMENT} FROM billing_payments WHERE provider_invoice_id = $1 FOR UPDATE`, [invoiceId])
        const write = decide(r ? payment(r) : null)
        if (!write) return 'skipped' as const
        const p = write.input
        await tx`INSERT INTO billing_payments (id, client_id, provider_invoice_id, provider_subscription_id, amount, currency, status, description,
            period_start, period_end, invoice_url, invoice_pdf, paid_at, created_at, updated_at)
          VALUES (${write.id}, ${p.clientId}, ${p.providerInvoiceId}, ${p.providerSubscriptionId}, ${p.amount}, ${p.currency}, ${p.status},
            ${p.description}, ${p.periodStart}, ${p.periodEnd}, ${p.invoiceUrl}, ${p.invoicePdf}, ${p.paidAt}, ${p.createdAt}, ${now})
          ON CONFLICT (provider_invoice_id) DO UPDATE SET client_id = excluded.client_id, provider_subscription_id = excluded.provider_subscription_id,
            amount = excluded.amount, currency = excluded.currency, status = excluded.status, description = excluded.description,
            period_start = excluded.period_start, period_end = excluded.period_end, invoice_url = excluded.invoice_url,
            invoice_pdf = excluded.invoice_pdf, paid_at = excluded.paid_at, created_at = excluded.created_at, updated_at = excluded.updated_at`
        return 'applied' as const
      })
    },
    async listPayments(clientId, q) {
      const cond = 'client_id = $1 AND ($2::bigint IS NULL OR created_at >= $2) AND ($3::bigint IS NULL OR created_at <= $3)'
      const params = [clientId, q.start ?? null, q.end ?? null]
      const rows: Raw[] = await sql.unsafe(
        `SELECT ${PAYMENT} FROM billing_payments WHERE ${cond} ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $4 OFFSET $5`,
        [...params, q.limit, q.offset],
      )
      const [c]: { n: number }[] = await sql.unsafe(`SELECT count(*)::int AS n FROM billing_payments WHERE ${cond}`, params)
      return { items: rows.map(payment), total: c!.n }
    },
  }
}
