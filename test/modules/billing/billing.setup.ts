import { testApp, type TestApp } from '../../helpers/app'
import type { Plan } from '../../../src/modules/billing/billing.catalog'
import { FAKE_SECRET_KEY, FAKE_WEBHOOK_SECRET, fakeStripe, signedEvent, type FakeStripe } from '../../helpers/fake-stripe'

const started: { stop(): void }[] = []

/** Stops every fake Stripe started by billingApp; each test file calls it in afterEach. */
export function stopFakes() {
  while (started.length) started.pop()!.stop()
}

/** An app whose Stripe client talks to a fresh fake Stripe (stopped by stopFakes). */
export function billingApp(opts: { webhookSecret?: string | null; plans?: Plan[] } = {}) {
  const fake = fakeStripe()
  started.push(fake)
  const t = testApp({
    stripe: fake.client(),
    plans: opts.plans,
    config: {
      stripe: { secretKey: FAKE_SECRET_KEY, webhookSecret: opts.webhookSecret === undefined ? FAKE_WEBHOOK_SECRET : opts.webhookSecret, apiBase: fake.apiBase },
    },
  })
  return { t, fake }
}

export const nowS = (t: TestApp) => Math.floor(t.clock.now() / 1000)

/** Signs an event at the app clock's now (unless told otherwise) and posts it to the webhook. */
export async function sendEvent(
  t: TestApp,
  fake: FakeStripe,
  input: { id?: string; type: string; object: unknown; created?: number; signedAt?: number; secret?: string },
) {
  const ev = await signedEvent(fake.client(), { ...input, signedAt: input.signedAt ?? nowS(t) })
  const res = await postEvent(t, ev.payload, ev.signature)
  return { ...res, event: ev }
}

export const postEvent = (t: TestApp, payload: string, signature?: string) =>
  t.request('POST', '/v1/billing/webhook', {
    raw: payload,
    headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) },
  })

/** The plan fields of a client row, read straight from the database. */
export const clientRow = (t: TestApp, clientId: string) =>
  t.db.sqlite
    .query<{ plan_type: string; subscription_status: string; max_devices: number; max_users: number }, [string]>(
      'SELECT plan_type, subscription_status, max_devices, max_users FROM clients WHERE id = ?',
    )
    .get(clientId)!

export const checkoutSession = (clientId: string, customer: string, subscription: string) => ({
  id: 'cs_test_done',
  object: 'checkout.session',
  mode: 'subscription',
  status: 'complete',
  client_reference_id: clientId,
  customer,
  subscription,
  metadata: { client_id: clientId, plan_id: 'b2c_monthly' },
})
