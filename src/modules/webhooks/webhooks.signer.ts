import { createHmac, randomBytes } from 'node:crypto'

/**
 * Signatures per Standard Webhooks (standardwebhooks.com): the secret is `whsec_` + base64 of
 * random bytes, the signed content is `${webhook-id}.${webhook-timestamp}.${body}`, and
 * `webhook-signature` lists `v1,<base64 HMAC-SHA256>` entries separated by spaces, one per
 * secret in force (during a rotation the new and the previous one, so a receiver holding either
 * verifies).
 */
export const SECRET_PREFIX = 'whsec_'
const SECRET_BYTES = 32

export const newSecret = () => SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64')

/** The HMAC key a secret stands for: the base64 after the prefix. */
export const secretKeyOf = (secret: string) => Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')

/** One `v1,…` signature of a message with one key. */
export function signWith(key: Uint8Array, messageId: string, timestampS: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampS}.${body}`).digest('base64')}`
}

/** The three headers of a signed delivery; `keys` are the secrets in force, newest first. */
export function signedHeaders(keys: Uint8Array[], messageId: string, timestampS: number, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': keys.map((k) => signWith(k, messageId, timestampS, body)).join(' '),
  }
}
