import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import type { Logger } from './logger'

/**
 * AES-256-GCM for third-party secrets at rest (language-model API keys). The stored form is
 * `v1.<base64 iv|ciphertext|tag>`; the associated data binds a ciphertext to its owner (the
 * client id), so a row copied into another tenant does not decrypt.
 */
const VERSION = 'v1.'

export function sealSecret(key: Uint8Array, plaintext: string, aad: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(aad))
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return VERSION + Buffer.concat([iv, ct, cipher.getAuthTag()]).toString('base64')
}

/** null when the ciphertext is damaged or was sealed with another key (e.g. the key file was replaced). */
export function openSecret(key: Uint8Array, sealed: string, aad: string): string | null {
  if (!sealed.startsWith(VERSION)) return null
  const raw = Buffer.from(sealed.slice(VERSION.length), 'base64')
  if (raw.length < 12 + 16) return null
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
    decipher.setAAD(Buffer.from(aad))
    decipher.setAuthTag(raw.subarray(raw.length - 16))
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8')
  } catch {
    return null
  }
}

/** What a secret may look like in a response: never more than its last 4 characters. */
export const maskSecret = (secret: string) => `••••${secret.length >= 12 ? secret.slice(-4) : ''}`

/** A 32-byte key from a data-dir secret string (any length ≥ 32 bytes), domain-separated. */
export const deriveSecretKey = (secret: string) => new Uint8Array(hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), 'vigil secret-box v1', 32))

/** A key, or how to make it the first time it is needed. */
export type SecretKeySource = Uint8Array | (() => Uint8Array)

/**
 * Injected key first, then VIGIL_SECRET_KEY. Without either (tests, tools) the key is
 * ephemeral: secrets saved now cannot be read after a restart, hence the warning.
 * An injected source is called once, on first use: most instances never store a provider
 * key, and the key derivation alone maps crypto code into memory that an idle server never needs.
 */
export function resolveSecretKey(injected: SecretKeySource | undefined, configured: string | null, logger: Logger): () => Uint8Array {
  if (injected) {
    let key: Uint8Array | undefined
    return () => {
      if (key) return key
      const made = typeof injected === 'function' ? injected() : injected
      if (made.length !== 32) throw new Error('secretKey must be 32 bytes')
      return (key = made)
    }
  }
  const key = configured ? new Uint8Array(Buffer.from(configured, 'base64')) : ephemeralKey(logger)
  return () => key
}

function ephemeralKey(logger: Logger): Uint8Array {
  logger.warn('no secret key configured: provider API keys saved now will not survive a restart (set VIGIL_SECRET_KEY)')
  return new Uint8Array(randomBytes(32))
}
