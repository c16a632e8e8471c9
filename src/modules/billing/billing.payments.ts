import type Stripe from 'stripe'
import type { Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { BillingEventRef, BillingStore } from './billing.store'
import { invoiceSubscriptionId } from './billing.stripe'

const ms = (s: number | null | undefined) => (typeof s === 'number' ? s * 1000 : null)

/**
 * The payment status an invoice stands for. `failed` comes from invoice.payment_failed (or an
 * open invoice Stripe already tried to charge).
 */
function statusOf(inv: Stripe.Invoice, event: 'paid' | 'failed' | null): string | null {
  if (event === 'paid' || inv.status === 'paid') return 'paid'
  if (event === 'failed') return 'failed'
  if (inv.status === 'draft' || !inv.status) return null // not a payment yet
  if (inv.status === 'open' && inv.attempt_count > 0) return 'failed'
  return inv.status
}

/**
 * Records (or updates) the payment an invoice stands for, with the provider event that brought
 * it claimed in the same transaction (null for a sync). `skipped` when the invoice is no payment
 * yet, belongs to another client, or would downgrade a recorded payment.
 */
export function recordInvoice(
  deps: { store: BillingStore; clock: Clock },
  clientId: string,
  inv: Stripe.Invoice,
  kind: 'paid' | 'failed' | null,
  event: BillingEventRef | null = null,
): Promise<'applied' | 'skipped' | 'duplicate'> {
  const now = deps.clock.now()
  return deps.store.recordPayment(inv.id, event, now, (existing) => {
    if (existing && existing.clientId !== clientId) return null // belongs to another client: never move it
    const status = statusOf(inv, kind)
    if (!status) return null
    // A recorded payment is never downgraded: a late failure event cannot hide money that came in.
    if (existing?.status === 'paid' && status !== 'paid') return null
    const line = inv.lines?.data?.[0]
    return {
      id: existing?.id ?? newId('pay'),
      input: {
        clientId,
        providerInvoiceId: inv.id,
        providerSubscriptionId: invoiceSubscriptionId(inv),
        amount: status === 'paid' ? inv.amount_paid : inv.amount_due,
        currency: inv.currency,
        status,
        description: inv.description ?? line?.description ?? null,
        periodStart: ms(line?.period?.start ?? inv.period_start),
        periodEnd: ms(line?.period?.end ?? inv.period_end),
        invoiceUrl: inv.hosted_invoice_url ?? null,
        invoicePdf: inv.invoice_pdf ?? null,
        paidAt: status === 'paid' ? (ms(inv.status_transitions?.paid_at) ?? existing?.paidAt ?? now) : null,
        createdAt: ms(inv.created) ?? now,
      },
    }
  })
}
