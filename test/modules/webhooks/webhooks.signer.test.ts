import { describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { newSecret, secretKeyOf, signedHeaders, signWith } from '../../../src/modules/webhooks/webhooks.signer'

/** Our signatures, checked by the reference implementation (standardwebhooks), not by our own code. */
const body = JSON.stringify({ type: 'alert.firing', timestamp: '2026-01-01T00:00:00.000Z', data: { alert: { id: 'alr_1' } }, version: 1 })
const now = () => Math.floor(Date.now() / 1000)
const headersOf = (h: Record<string, string>) => ({
  'webhook-id': h['webhook-id']!,
  'webhook-timestamp': h['webhook-timestamp']!,
  'webhook-signature': h['webhook-signature']!,
})

describe('signing per Standard Webhooks', () => {
  test('a secret is whsec_ and 32 random bytes of base64, new every time', () => {
    const a = newSecret()
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(secretKeyOf(a).length).toBe(32)
    expect(newSecret()).not.toBe(a)
  })

  test('standardwebhooks verifies a signed delivery and returns its payload', () => {
    const secret = newSecret()
    const h = signedHeaders([secretKeyOf(secret)], 'msg_1', now(), body)
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(new Webhook(secret).verify(body, headersOf(h))).toEqual(JSON.parse(body))
  })

  test('the signature is the reference one for the same id, timestamp and body', () => {
    const secret = newSecret()
    const ts = now()
    expect(signWith(secretKeyOf(secret), 'msg_2', ts, body)).toBe(new Webhook(secret).sign('msg_2', new Date(ts * 1000), body))
  })

  test('another secret, a changed body, id or timestamp do not verify', () => {
    const secret = newSecret()
    const ts = now()
    const h = signedHeaders([secretKeyOf(secret)], 'msg_3', ts, body)
    expect(() => new Webhook(newSecret()).verify(body, headersOf(h))).toThrow('No matching signature found')
    expect(() => new Webhook(secret).verify(body.replace('alr_1', 'alr_2'), headersOf(h))).toThrow('No matching signature found')
    expect(() => new Webhook(secret).verify(body, { ...headersOf(h), 'webhook-id': 'msg_4' })).toThrow('No matching signature found')
    expect(() => new Webhook(secret).verify(body, { ...headersOf(h), 'webhook-timestamp': String(ts - 1) })).toThrow('No matching signature found')
  })

  test('during a rotation both signatures are sent: a receiver holding either secret verifies', () => {
    const [fresh, old] = [newSecret(), newSecret()]
    const h = signedHeaders([secretKeyOf(fresh), secretKeyOf(old)], 'msg_5', now(), body)
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2)
    expect(new Webhook(fresh).verify(body, headersOf(h))).toEqual(JSON.parse(body))
    expect(new Webhook(old).verify(body, headersOf(h))).toEqual(JSON.parse(body))
    expect(() => new Webhook(newSecret()).verify(body, headersOf(h))).toThrow()
  })

  test('bodies with non-ASCII text sign as their UTF-8 bytes', () => {
    const secret = newSecret()
    const text = JSON.stringify({ type: 'device.offline', data: { device: { name: 'büro-π 🖥' } } })
    const h = signedHeaders([secretKeyOf(secret)], 'msg_6', now(), text)
    expect(new Webhook(secret).verify(text, headersOf(h))).toEqual(JSON.parse(text))
  })
})
