import type Stripe from 'stripe'
import { stripeClient } from '../../src/modules/billing/billing.stripe'

/** One request the service made to the fake, with its form (or query) parameters flattened. */
export interface RecordedRequest {
  method: string
  path: string
  params: Record<string, string>
  idempotencyKey: string | null
  authorization: string | null
}

export interface FakeSubscriptionInput {
  id?: string
  customer: string
  status?: string
  metadata?: Record<string, string>
  priceId?: string
  amount?: number
  currency?: string
  interval?: 'month' | 'year'
  /** seconds since epoch */
  periodStart?: number
  periodEnd?: number
  cancelAtPeriodEnd?: boolean
  created?: number
}

export const FAKE_SECRET_KEY = 'sk_test_fake_0123456789abcdef'
export const FAKE_WEBHOOK_SECRET = 'whsec_test_fake_0123456789abcdef'

/**
 * A small stand-in for the Stripe API on 127.0.0.1: it answers the endpoints Vigil calls
 * (customers, checkout and portal sessions, subscriptions, invoices) with plausible objects,
 * records every request, and lets a test set the subscriptions and invoices it returns.
 * The real `stripe` SDK is pointed at it, so request encoding and parsing are the SDK's own.
 */
export function fakeStripe() {
  const requests: RecordedRequest[] = []
  const customers = new Map<string, Record<string, unknown>>()
  const subscriptions = new Map<string, Record<string, unknown>>()
  const invoices: Record<string, unknown>[] = []
  let seq = 0
  const next = (prefix: string) => `${prefix}_fake${String(++seq).padStart(6, '0')}`
  let failNext: { status: number; code: string } | null = null

  const json = (body: unknown, status = 200, extra: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'request-id': next('req'), ...extra } })
  const missing = (what: string, id: string) =>
    json({ error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}: '${id}'`, param: 'id' } }, 404)
  const list = (data: unknown[], url: string) => ({ object: 'list', data, has_more: false, url })

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const form = req.method === 'GET' || req.method === 'DELETE' ? url.searchParams : new URLSearchParams(await req.text())
      const params = Object.fromEntries(form.entries())
      const path = url.pathname
      requests.push({ method: req.method, path, params, idempotencyKey: req.headers.get('idempotency-key'), authorization: req.headers.get('authorization') })
      if (failNext) {
        const f = failNext
        failNext = null
        // stripe-should-retry: false stops the SDK's retries (and their back-off sleeps) in tests.
        return json({ error: { type: 'api_error', code: f.code, message: 'fake failure' } }, f.status, { 'stripe-should-retry': 'false' })
      }
      const now = Math.floor(Date.now() / 1000)
      let m: RegExpMatchArray | null
      if (req.method === 'POST' && path === '/v1/customers') {
        const c = {
          id: next('cus'),
          object: 'customer',
          created: now,
          email: params.email ?? null,
          name: params.name ?? null,
          metadata: metadataOf(params, 'metadata'),
          livemode: false,
        }
        customers.set(c.id, c)
        return json(c)
      }
      if (req.method === 'GET' && (m = path.match(/^\/v1\/customers\/([^/]+)$/))) {
        const c = customers.get(m[1]!)
        return c ? json(c) : missing('customer', m[1]!)
      }
      if (req.method === 'POST' && path === '/v1/checkout/sessions') {
        const id = next('cs_test')
        return json({
          id,
          object: 'checkout.session',
          mode: params.mode,
          customer: params.customer ?? null,
          client_reference_id: params.client_reference_id ?? null,
          metadata: metadataOf(params, 'metadata'),
          status: 'open',
          subscription: null,
          success_url: params.success_url,
          cancel_url: params.cancel_url,
          url: `https://checkout.stripe.test/c/pay/${id}`,
          created: now,
          livemode: false,
        })
      }
      if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
        const id = next('bps')
        return json({
          id,
          object: 'billing_portal.session',
          customer: params.customer,
          return_url: params.return_url ?? null,
          url: `https://billing.stripe.test/p/session/${id}`,
          created: now,
          livemode: false,
        })
      }
      if (req.method === 'GET' && (m = path.match(/^\/v1\/subscriptions\/([^/]+)$/))) {
        const s = subscriptions.get(m[1]!)
        return s ? json(s) : missing('subscription', m[1]!)
      }
      if (req.method === 'GET' && path === '/v1/subscriptions') {
        const data = [...subscriptions.values()].filter((s) => !params.customer || s.customer === params.customer)
        return json(list(data, path))
      }
      if (req.method === 'GET' && path === '/v1/invoices') {
        const data = invoices.filter((i) => !params.customer || i.customer === params.customer)
        return json(list(data, path))
      }
      return json({ error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` } }, 404)
    },
  })
  const port = server.port!
  const apiBase = `http://127.0.0.1:${port}`

  /** Builds (and stores) a subscription in the API's current shape: the period lives on the item. */
  function setSubscription(input: FakeSubscriptionInput): Stripe.Subscription {
    const id = input.id ?? next('sub')
    const start = input.periodStart ?? 1_767_225_600 // 2026-01-01
    const end = input.periodEnd ?? start + (input.interval === 'year' ? 365 : 30) * 86_400
    const price = {
      id: input.priceId ?? next('price'),
      object: 'price',
      unit_amount: input.amount ?? 900,
      currency: input.currency ?? 'usd',
      recurring: { interval: input.interval ?? 'month', interval_count: 1 },
      lookup_key: null,
      product: 'prod_fake',
    }
    const sub = {
      id,
      object: 'subscription',
      customer: input.customer,
      status: input.status ?? 'active',
      metadata: input.metadata ?? {},
      cancel_at_period_end: input.cancelAtPeriodEnd ?? false,
      created: input.created ?? start,
      currency: price.currency,
      livemode: false,
      items: {
        object: 'list',
        has_more: false,
        url: `/v1/subscription_items?subscription=${id}`,
        data: [{ id: next('si'), object: 'subscription_item', price, quantity: 1, current_period_start: start, current_period_end: end }],
      },
    }
    subscriptions.set(id, sub)
    return sub as unknown as Stripe.Subscription
  }

  function addInvoice(input: {
    customer: string
    subscription?: string
    amount?: number
    status?: string
    created?: number
    periodStart?: number
    periodEnd?: number
    attemptCount?: number
  }): Stripe.Invoice {
    const id = next('in')
    const created = input.created ?? 1_767_225_600
    const amount = input.amount ?? 900
    const status = input.status ?? 'paid'
    const inv = {
      id,
      object: 'invoice',
      customer: input.customer,
      status,
      created,
      currency: 'usd',
      amount_due: amount,
      amount_paid: status === 'paid' ? amount : 0,
      attempt_count: input.attemptCount ?? 1,
      description: null,
      hosted_invoice_url: `https://invoice.stripe.test/i/${id}`,
      invoice_pdf: `https://invoice.stripe.test/i/${id}/pdf`,
      period_start: input.periodStart ?? created,
      period_end: input.periodEnd ?? created,
      status_transitions: { paid_at: status === 'paid' ? created : null },
      parent: input.subscription
        ? { type: 'subscription_details', quote_details: null, subscription_details: { subscription: input.subscription, metadata: {} } }
        : null,
      lines: {
        object: 'list',
        has_more: false,
        url: `/v1/invoices/${id}/lines`,
        data: [
          {
            id: next('il'),
            object: 'line_item',
            description: '1 × Vigil Pro (monthly)',
            period: { start: input.periodStart ?? created, end: input.periodEnd ?? created + 30 * 86_400 },
          },
        ],
      },
    }
    invoices.push(inv)
    return inv as unknown as Stripe.Invoice
  }

  return {
    apiBase,
    port,
    requests,
    /** the requests to one path (e.g. '/v1/checkout/sessions'), optionally of one method */
    calls: (path: string, method?: string) => requests.filter((r) => r.path === path && (!method || r.method === method)),
    setSubscription,
    subscription: (id: string) => subscriptions.get(id) as unknown as Stripe.Subscription | undefined,
    removeSubscription: (id: string) => void subscriptions.delete(id),
    addInvoice,
    /** make the next request fail with this HTTP status and Stripe error code */
    failNext: (status: number, code = 'api_error') => void (failNext = { status, code }),
    /** a Stripe client aimed at the fake, built the way the service builds its own */
    client: (): Stripe => stripeClient({ secretKey: FAKE_SECRET_KEY, webhookSecret: FAKE_WEBHOOK_SECRET, apiBase })!,
    stop: () => server.stop(true),
  }
}

export type FakeStripe = ReturnType<typeof fakeStripe>

/** `metadata[client_id]=x` form fields back into an object. */
function metadataOf(params: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(params)) {
    const m = k.match(new RegExp(`^${prefix}\\[([^\\]]+)\\]$`))
    if (m) out[m[1]!] = v
  }
  return out
}

/**
 * A Stripe event, JSON-encoded and signed the way Stripe signs it. `signedAt` is in seconds
 * (default: the app clock's now); `created` defaults to the same time.
 */
export async function signedEvent(stripe: Stripe, input: { id?: string; type: string; object: unknown; created?: number; signedAt: number; secret?: string }) {
  const payload = JSON.stringify({
    id: input.id ?? `evt_${crypto.randomUUID().replaceAll('-', '')}`,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: input.created ?? input.signedAt,
    type: input.type,
    data: { object: input.object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  })
  const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: input.secret ?? FAKE_WEBHOOK_SECRET, timestamp: input.signedAt })
  return { payload, signature, id: JSON.parse(payload).id as string }
}
