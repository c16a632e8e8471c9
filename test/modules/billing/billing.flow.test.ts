import { afterEach, describe, expect, test } from 'bun:test'
import { createTenant } from '../../helpers/fixtures'
import type { FakeStripe } from '../../helpers/fake-stripe'
import { billingApp, checkoutSession, clientRow, nowS, sendEvent } from './billing.setup'

const fakes: FakeStripe[] = []
afterEach(() => {
  while (fakes.length) fakes.pop()!.stop()
})
function setup() {
  const b = billingApp()
  fakes.push(b.fake)
  return b
}

describe('checkout → webhook → limits', () => {
  test('a paid subscription raises the limits at once and its end returns the client to free', async () => {
    const { t, fake } = setup()
    const ten = await createTenant(t)
    const limitOf = async () => (await t.request('GET', '/v1/billing/plans', { headers: ten.keyHeaders })).headers.get('x-ratelimit-limit')
    expect(await limitOf()).toBe('60')

    const co = await t.request('POST', '/v1/billing/checkout', { headers: ten.userHeaders, body: { plan: 'b2c_monthly' } })
    expect(co.status).toBe(200)
    expect(co.body.checkout_url).toStartWith('https://checkout.stripe.test/')
    expect(co.body.session_id).toStartWith('cs_test')
    console.log(JSON.stringify(fake.requests, null, 1))
  })
})
