import { take, type Bucket, type TakeResult } from '../lib/token-bucket'

/**
 * Where buckets live: in this process (memoryRateLimiter), or in a store every hub shares
 * (rate-limiter.redis.ts, rate-limiter.pg.ts) so that one client has one budget however many
 * hubs its requests reach. A shared store answers asynchronously; the memory one at once, and
 * the request pipeline awaits only a promise, so the one-hub path pays nothing for the choice.
 */
export interface RateLimiter {
  take(key: string, limitPerMinute: number, now: number): TakeResult | Promise<TakeResult>
  /** lets go of connections (a shared store); nothing to do for the memory limiter */
  close?(): Promise<void>
}

/** The limiter kept in this process: synchronous, for callers that need an answer at once. */
export interface MemoryRateLimiter extends RateLimiter {
  take(key: string, limitPerMinute: number, now: number): TakeResult
  size(): number
}

/** Every bucket refills completely in this time, whatever its size. */
export const WINDOW_MS = 60_000

interface Entry extends Bucket {
  capacity: number
}

/**
 * Buckets kept in a Map in least-recently-used order (a touch moves an entry to the end).
 * An entry untouched for a whole window is full again, so forgetting it changes no answer:
 * each call sweeps a few such entries off the front. A hard cap bounds memory even under
 * millions of distinct callers inside one window (the oldest are dropped first).
 */
export function memoryRateLimiter(opts: { maxEntries?: number } = {}): MemoryRateLimiter {
  const maxEntries = opts.maxEntries ?? 1_000_000
  const buckets = new Map<string, Entry>()

  const sweep = (now: number) => {
    let budget = 16
    for (const [key, entry] of buckets) {
      if (budget-- <= 0) break
      if (entry.updatedAt + WINDOW_MS > now && buckets.size <= maxEntries) break
      buckets.delete(key)
    }
  }

  return {
    take(key, limitPerMinute, now) {
      let entry = buckets.get(key)
      if (entry) {
        buckets.delete(key)
        // A plan change takes effect at once; keep the tokens the caller had, capped.
        if (entry.capacity !== limitPerMinute) {
          entry.tokens = Math.min(entry.tokens, limitPerMinute)
          entry.capacity = limitPerMinute
        }
      } else {
        entry = { tokens: limitPerMinute, updatedAt: now, capacity: limitPerMinute }
      }
      const result = take(entry, limitPerMinute, WINDOW_MS, now)
      buckets.set(key, entry)
      sweep(now)
      return result
    },
    size: () => buckets.size,
  }
}

/**
 * The answer of a take a shared store made: it keeps and returns only the tokens left and
 * whether one was taken; the rest is the same arithmetic as lib/token-bucket.ts, so every
 * store gives the memory limiter's headers for the same sequence of takes.
 */
export function takeResult(allowed: boolean, tokens: number, limit: number, now: number): TakeResult {
  const msPerToken = WINDOW_MS / limit
  return {
    allowed,
    limit,
    remaining: Math.floor(tokens),
    resetAt: now + Math.ceil((limit - tokens) * msPerToken),
    retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) * msPerToken),
  }
}
