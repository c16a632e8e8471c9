import { take, type Bucket, type TakeResult } from '../lib/token-bucket'

/**
 * Where buckets live. In-memory by default; the interface is what a shared store
 * (Redis, say) would implement to spread one limit across several instances.
 */
export interface RateLimiter {
  take(key: string, limitPerMinute: number, now: number): TakeResult
  size(): number
}

const WINDOW_MS = 60_000

interface Entry extends Bucket {
  capacity: number
}

/**
 * Buckets kept in a Map in least-recently-used order (a touch moves an entry to the end).
 * An entry untouched for a whole window is full again, so forgetting it changes no answer:
 * each call sweeps a few such entries off the front. A hard cap bounds memory even under
 * millions of distinct callers inside one window (the oldest are dropped first).
 */
export function memoryRateLimiter(opts: { maxEntries?: number } = {}): RateLimiter {
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
