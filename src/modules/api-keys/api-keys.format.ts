import { randomBytes } from 'node:crypto'
import { API_KEY_PREFIX } from '../../http/credentials'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const SECRET_LENGTH = 40 // ~238 bits of entropy
const CHECKSUM_LENGTH = 6
export const KEY_PREFIX_LENGTH = 12 // what lists show: "vk_" and nine characters
/** every key's length: a string of another length is no key, whatever it holds */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + SECRET_LENGTH + CHECKSUM_LENGTH

function base62(bytes: Uint8Array, length: number): string {
  let out = ''
  for (const b of bytes) {
    if (b >= 248) continue // rejection sampling keeps every character equally likely
    out += BASE62[b % 62]
    if (out.length === length) break
  }
  return out
}

function checksum(secret: string): string {
  let n = Bun.hash.crc32(secret)
  let out = ''
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out
    n = Math.floor(n / 62)
  }
  return out
}

/**
 * A new key: `vk_` + 40 random base62 characters + a 6-character CRC32 checksum. The prefix
 * makes a leaked key findable by secret scanners; the checksum lets us (and them) reject a
 * mistyped or made-up key without a database lookup.
 */
export function generateApiKey(): string {
  let secret = ''
  while (secret.length < SECRET_LENGTH) secret += base62(randomBytes(64), SECRET_LENGTH - secret.length)
  return `${API_KEY_PREFIX}${secret}${checksum(secret)}`
}

export function isWellFormedApiKey(key: string): boolean {
  if (!key.startsWith(API_KEY_PREFIX) || key.length !== API_KEY_LENGTH) return false
  const secret = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + SECRET_LENGTH)
  return /^[0-9A-Za-z]+$/.test(secret) && key.endsWith(checksum(secret))
}

export const keyPrefixOf = (key: string) => key.slice(0, KEY_PREFIX_LENGTH)
