import type { Logger } from '../lib/logger'
import type { Timers } from '../lib/timers'
import { memoryRateLimiter, type RateLimiter } from './rate-limiter'
import { redactUrl, urlPassword } from '../lib/url-secrets'
import { SHARED_BOUND_MS, withLocalFallback } from './rate-limiter.fallback'
import { postgresRateLimiter, rateLimitPool } from './rate-limiter.pg'
import { redisRateLimiter } from './rate-limiter.redis'

export interface LimiterChoice {
  /** VIGIL_REDIS_URL */
  redisUrl: string | null
  /** VIGIL_DATABASE_URL when the hub runs on PostgreSQL; null on SQLite */
  databaseUrl: string | null
  logger: Logger
  timers: Timers
  onFallback(): void
}

/**
 * Where the rate limit's buckets live: in Redis when VIGIL_REDIS_URL is set, else in the hub's
 * PostgreSQL database when it runs on one, else in this process. A shared store is wrapped so
 * that a store that is down or slow never fails a request (rate-limiter.fallback.ts).
 */
export function selectRateLimiter(c: LimiterChoice): RateLimiter {
  const shared = c.redisUrl
    ? { limiter: redisRateLimiter(c.redisUrl, { sendWithinMs: SHARED_BOUND_MS }), url: c.redisUrl, engine: 'redis' }
    : c.databaseUrl
      ? { limiter: postgresRateLimiter(rateLimitPool(c.databaseUrl), { ownsPool: true }), url: c.databaseUrl, engine: 'postgresql' }
      : null
  if (!shared) return memoryRateLimiter()
  const store = redactUrl(shared.url)
  c.logger.info('rate limit shared across hubs', { engine: shared.engine, store })
  return withLocalFallback({
    shared: shared.limiter,
    local: memoryRateLimiter(),
    timers: c.timers,
    logger: c.logger,
    store,
    secret: urlPassword(shared.url),
    onFallback: c.onFallback,
  })
}
