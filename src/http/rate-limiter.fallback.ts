import type { Logger } from '../lib/logger'
import type { Timers } from '../lib/timers'
import type { TakeResult } from '../lib/token-bucket'
import type { MemoryRateLimiter, RateLimiter } from './rate-limiter'

/** A shared store slower than this for one take is treated as unreachable: the request is not held longer. */
export const SHARED_BOUND_MS = 50
/** While the store is unreachable, one request in this time asks it again; the others count locally. */
export const RETRY_AFTER_MS = 1_000

export interface FallbackDeps {
  shared: RateLimiter
  /** the hub's own buckets, used while the shared store does not answer */
  local: MemoryRateLimiter
  timers: Timers
  logger: Logger
  /** what the log lines name the store by: its address with any password replaced */
  store: string
  /** the store's password, never to appear in a log line (an error may quote the address) */
  secret?: string
  /** one take answered by the local limiter (the /metrics counter) */
  onFallback(): void
  boundMs?: number
  retryMs?: number
}

/**
 * A shared limiter that never fails a request: a take the store does not answer within the
 * bound (refused connection, error, a server that hangs) is answered by the hub's own memory
 * limiter instead, so each hub then enforces the whole limit by itself until the store is back.
 * Said once in the log when it happens and once when the store answers again; while it is
 * down, one take per `retryMs` asks it again and the rest go straight to the local limiter.
 */
export function withLocalFallback(d: FallbackDeps): RateLimiter {
  const boundMs = d.boundMs ?? SHARED_BOUND_MS
  const retryMs = d.retryMs ?? RETRY_AFTER_MS
  let down = false
  let downSince = 0
  let nextProbe = 0

  const local = (key: string, limit: number, now: number): TakeResult => {
    d.onFallback()
    return d.local.take(key, limit, now)
  }

  return {
    take(key, limit, now) {
      // only a take sent while the store was down may say it is back: one sent before, answered
      // in time while others of the same burst were not, must not flap the state (and the log)
      const probe = down
      if (down) {
        if (now < nextProbe) return local(key, limit, now)
        nextProbe = now + retryMs
      }
      return within(d.shared.take(key, limit, now), boundMs, d.timers).then(
        (result) => {
          if (probe && down) {
            down = false
            d.logger.info('rate limit store answers again: the limit is counted across hubs again', { store: d.store, down_ms: now - downSince })
          }
          return result
        },
        (err: Error) => {
          if (!down) {
            down = true
            downSince = now
            nextProbe = now + retryMs
            d.logger.warn('rate limit store unreachable: each hub counts the limit by itself until it answers', {
              store: d.store,
              reason: scrub(err.message, d.secret),
            })
          }
          return local(key, limit, now)
        },
      )
    },
    close: async () => d.shared.close?.(),
  }
}

/** The answer, or a rejection once `ms` passed without one (the late answer is then ignored). */
function within<T>(answer: T | Promise<T>, ms: number, timers: Timers): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = timers.after(ms, () => reject(new Error(`no answer within ${ms} ms`)))
    Promise.resolve(answer).then(
      (v) => {
        cancel()
        resolve(v)
      },
      (err) => {
        cancel()
        reject(err instanceof Error ? err : new Error(String(err)))
      },
    )
  })
}

const scrub = (text: string, secret: string | undefined) => (secret ? text.split(secret).join('***') : text)
