import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { guards } from '../../http/guards'
import { queryInput } from '../../http/input'
import { BillingResponse, PaymentList, PaymentsQuery } from './billing.model'
import { billingOf, payments } from './billing.service'

const tags = ['billing']
const paymentsQuery = queryInput(PaymentsQuery)

/** The client's billing reads under /v1/clients/me (the accounts module owns the rest of that path). */
export function billingClientRoutes(ctx: AppContext) {
  return new Elysia()
    .use(guards(ctx))
    .get('/v1/clients/me/billing', ({ user }) => billingOf(ctx, user.clientId), {
      user: true,
      response: { 200: BillingResponse },
      detail: { tags, summary: "The client's billing record" },
    })
    .get('/v1/clients/me/payments', ({ user, request }) => payments(ctx, user.clientId, paymentsQuery.read(request)), {
      user: true,
      response: { 200: PaymentList },
      detail: { ...paymentsQuery.doc, tags, summary: 'Payments recorded from invoices, newest first' },
    })
}
