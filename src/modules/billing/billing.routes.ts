import { Elysia, t } from 'elysia'
import { authGuards, type UserRequirement } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { rawBodyOf } from '../../http/request-state'
import { billingClientRoutes } from './billing.client.routes'
import { routeErrors } from '../../http/openapi-errors'
import { jsonInput } from '../../http/input'
import { CheckoutRequest, CheckoutResponse, PlanInfo, PortalResponse, SubscriptionResponse, SyncResponse, WebhookResponse } from './billing.model'
import { checkout, planInfo, portal, subscriptionOf, sync, type BillingDeps } from './billing.service'
import { handleWebhook } from './billing.webhook'

const tags = ['billing']
/** who may spend the client's money or change its subscription */
const manage: UserRequirement = { roles: ['owner', 'admin'] }
const checkoutInput = jsonInput(CheckoutRequest)

/** /v1/billing/* and the client's billing reads. Provider flows need Stripe; reads never do. */
export function billingRoutes(deps: BillingDeps, auth: Authenticator) {
  return new Elysia()
    .use(authGuards(auth))
    .group('/v1/billing', (g) =>
      g
        .get('/plans', () => deps.plans().map((p) => planInfo(p, deps.config.rateLimits)), {
          response: { 200: t.Array(PlanInfo) },
          detail: { tags, summary: 'The plan catalog (public)' },
        })
        .post('/checkout', ({ user, body }) => checkout(deps, user.clientId, checkoutInput.read(body)), {
          user: manage,
          response: { 200: CheckoutResponse },
          detail: {
            ...routeErrors('invalid_parameter', 'conflict', 'billing_not_configured', 'provider_error'),
            ...checkoutInput.doc,
            tags,
            summary: 'Start a Stripe Checkout for a plan (owner or admin)',
          },
        })
        .post('/portal', ({ user }) => portal(deps, user.clientId), {
          user: manage,
          response: { 200: PortalResponse },
          detail: {
            ...routeErrors('no_customer', 'billing_not_configured', 'provider_error'),
            tags,
            summary: 'Open the Stripe customer portal (owner or admin)',
          },
        })
        .get('/subscription', ({ user }) => subscriptionOf(deps, user.clientId), {
          user: true,
          response: { 200: SubscriptionResponse },
          detail: { tags, summary: "The client's subscription (status none until one exists)" },
        })
        .post('/sync', ({ user }) => sync(deps, user.clientId), {
          user: manage,
          response: { 200: SyncResponse },
          detail: {
            ...routeErrors('no_customer', 'billing_not_configured', 'provider_error'),
            tags,
            summary: 'Pull the subscription and recent invoices from Stripe and apply them (owner or admin)',
          },
        })
        .post(
          '/webhook',
          async ({ request, body }) => {
            void body // reading it makes the gateway's parser keep the raw text for the signature
            const outcome = await handleWebhook(deps, rawBodyOf(request) ?? '', request.headers.get('stripe-signature'))
            return { received: true, outcome }
          },
          {
            response: { 200: WebhookResponse },
            detail: {
              ...routeErrors('bad_request', 'invalid_signature', 'billing_not_configured', 'provider_error'),
              tags,
              summary: 'Stripe webhook (signed with STRIPE_WEBHOOK_SECRET; no other auth)',
            },
          },
        ),
    )
    .use(billingClientRoutes(deps, auth))
}
