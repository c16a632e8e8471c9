/**
 * Token-bucket arithmetic, pure: a bucket holds at most `capacity` tokens and refills
 * continuously at capacity per `windowMs`. Taking a token from an empty bucket fails.
 */
export interface Bucket {
  tokens: number
  updatedAt: number
}

export interface TakeResult {
  allowed: boolean
  limit: number
  remaining: number
  /** when the bucket is full again (ms since epoch) */
  resetAt: number
  /** when the next token is available, if none is now (ms) */
  retryAfterMs: number
}

export function refill(bucket: Bucket, capacity: number, windowMs: number, now: number): number {
  const elapsed = Math.max(0, now - bucket.updatedAt)
  return Math.min(capacity, bucket.tokens + (elapsed * capacity) / windowMs)
}

export function take(bucket: Bucket, capacity: number, windowMs: number, now: number): TakeResult {
  const msPerToken = windowMs / capacity
  let tokens = refill(bucket, capacity, windowMs, now)
  const allowed = tokens >= 1
  if (allowed) tokens -= 1
  bucket.tokens = tokens
  bucket.updatedAt = now
  return {
    allowed,
    limit: capacity,
    remaining: Math.floor(tokens),
    resetAt: now + Math.ceil((capacity - tokens) * msPerToken),
    retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) * msPerToken),
  }
}

/** The moment a bucket has refilled completely and can be forgotten without changing any answer. */
export const fullAt = (bucket: Bucket, capacity: number, windowMs: number) => bucket.updatedAt + ((capacity - bucket.tokens) * windowMs) / capacity
