import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { queryInput } from '../../http/input'
import { BillingResponse, PaymentList, PaymentsQuery } from './billing.model'
import { billingOf, payments, type BillingDeps } from './billing.service'

const tags = ['billing']
const paymentsQuery = queryInput(PaymentsQuery)

/** The client's billing reads under /v1/clients/me (the accounts module owns the rest of that path). */
export function billingClientRoutes(deps: BillingDeps, auth: Authenticator) {
  return new Elysia()
    .use(authGuards(auth))
    .get('/v1/clients/me/billing', ({ user }) => billingOf(deps, user.clientId), {
      user: true,
      response: { 200: BillingResponse },
      detail: { tags, summary: "The client's billing record" },
    })
    .get('/v1/clients/me/payments', ({ user, request }) => payments(deps, user.clientId, paymentsQuery.read(request)), {
      user: true,
      response: { 200: PaymentList },
      detail: { ...paymentsQuery.doc, tags, summary: 'Payments recorded from invoices, newest first' },
    })
}
