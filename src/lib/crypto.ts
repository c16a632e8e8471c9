import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex')

/** URL-safe random secret of `bytes` bytes of entropy. */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url')

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a)
  const bb = Buffer.from(b)
  return ab.length === bb.length && timingSafeEqual(ab, bb)
}
