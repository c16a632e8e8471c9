import { afterEach, describe, expect, test } from 'bun:test'
import { testApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'
import { MAX_JSON_DEPTH } from '../../src/lib/json-depth'
import { tenantWithDevices } from '../helpers/metrics'
import { hardwareSample } from '../helpers/samples'
import { billingApp, postEvent, stopFakes } from '../modules/billing/billing.setup'
import { signedEvent } from '../helpers/fake-stripe'

afterEach(stopFakes)

const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n)
const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`
const json = { 'content-type': 'application/json' }

function expectTooDeep(res: { status: number; body: any }) {
  expect(res.status).toBe(422)
  expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'json_too_deep' }] })
}

/** Each of these took 4-20 s and two of them answered 500 (stack overflow) before the depth check. */
describe('nesting bombs are refused before parsing', () => {
  test('an anonymous 20,000-deep refresh body (Elysia route)', async () => {
    const t = testApp()
    expectTooDeep(await t.request('POST', '/v1/auth/refresh', { raw: `{"refresh_token":${objects(20_000)}}`, headers: json }))
  })

  test('a 100,000-deep array as a metrics batch (direct route)', async () => {
    const t = testApp()
    const ten = await tenantWithDevices(t)
    for (const path of ['/v1/metrics/batch', '/v1/metrics/hardware', '/v1/metrics/network']) {
      expectTooDeep(await t.request('POST', path, { raw: arrays(100_000), headers: { ...json, ...ten.keyHeaders } }))
    }
  })

  test('a deep value inside an otherwise valid body (PATCH /v1/clients/me name)', async () => {
    const t = testApp()
    const ten = await createTenant(t)
    expectTooDeep(await t.request('PATCH', '/v1/clients/me', { raw: `{"name":${arrays(100_000)}}`, headers: { ...json, ...ten.userHeaders } }))
    expectTooDeep(await t.request('PATCH', '/v1/clients/me', { raw: `{"name":${arrays(MAX_JSON_DEPTH)}}`, headers: { ...json, ...ten.userHeaders } }))
  })

  test('an unsigned deep body to the Stripe webhook: refused before the signature is even read', async () => {
    const { t, fake } = billingApp()
    expectTooDeep(await postEvent(t, objects(50_000), 't=1,v1=00'))
    expect(fake.requests).toHaveLength(0)
  })

  test('a signed Stripe event nests well within the limit and is accepted', async () => {
    const { t, fake } = billingApp()
    const object = { id: 'cus_1', object: 'customer', metadata: { a: { b: { c: [{ d: [1] }] } } } }
    const ev = await signedEvent(fake.client(), { type: 'customer.updated', object, signedAt: Math.floor(t.clock.now() / 1000) })
    expect((await postEvent(t, ev.payload, ev.signature)).status).toBe(200)
  })

  test('a deep body with a wrong key is a 401, not a parse: the credential is checked first', async () => {
    const t = testApp()
    const res = await t.request('POST', '/v1/metrics/batch', { raw: arrays(100_000), headers: { ...json, 'x-api-key': 'vk_nope' } })
    expect(res.status).toBe(401)
  })
})

describe('large but shallow bodies still parse', () => {
  test('a long flat string and a body of many small objects are stored', async () => {
    const t = testApp()
    const ten = await tenantWithDevices(t)
    // in a collector's own fields (kept as sent): the declared ones have bounds of their own
    const long = await t.request('POST', '/v1/metrics/hardware', {
      body: { ...hardwareSample(1), collector_note: '['.repeat(500_000) },
      headers: ten.keyHeaders,
    })
    expect(long.status).toBe(201)
    const partitions = Array.from({ length: 8_000 }, (_, i) => ({ device: `/dev/sd${i}`, percent: i % 100, opts: [i] }))
    const many = await t.request('POST', '/v1/metrics/hardware', { body: { ...hardwareSample(2), collector_parts: partitions }, headers: ten.keyHeaders })
    expect(many.status).toBe(201)
  })
})

describe('a request refused before its body is read closes its connection', () => {
  test('rate-limited, unauthenticated and oversized answers say connection: close; answers to read bodies keep it', async () => {
    const t = testApp({ config: { rateLimits: { free: 10, pro: 10, enterprise: 10, anonymous: 100 }, maxBodyBytes: 1024 } })
    const ten = await tenantWithDevices(t)
    const body = JSON.stringify({ hardware: hardwareSample() })
    // as a socket delivers them: with their length declared
    const send = (path: string, headers: Record<string, string>, raw: string) =>
      t.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { ...json, 'content-length': String(raw.length), ...headers }, body: raw }))
    const post = (headers: Record<string, string>) => send('/v1/metrics/batch', headers, body)
    const stored = await post(ten.keyHeaders)
    expect(stored.status).toBe(201)
    expect(stored.headers.get('connection')).toBeNull()
    let limited = await post(ten.keyHeaders)
    while (limited.status === 201) limited = await post(ten.keyHeaders)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('connection')).toBe('close')
    const anonymous = await post({})
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('connection')).toBe('close')
    const big = await send('/v1/auth/refresh', {}, 'x'.repeat(2048))
    expect(big.status).toBe(413)
    expect(big.headers.get('connection')).toBe('close')
    // a body that was read and found wanting leaves the connection as it was
    const deep = await send('/v1/auth/refresh', {}, arrays(100))
    expect(deep.status).toBe(422)
    expect(deep.headers.get('connection')).toBeNull()
  })
})
