import { AppError } from '../../http/errors'
import { memoryRateLimiter } from '../../http/rate-limiter'
import type { Clock } from '../../lib/clock'

/**
 * "Send now" requests (a channel's or an endpoint's test, a delivery's resend) per account and
 * minute. Each starts an attempt at once, bypassing the schedule: without a bound, one account
 * could keep its share of the delivery slots full of them all day. Beyond it: 429 rate_limited
 * with Retry-After.
 */
export const SEND_NOW_PER_MINUTE = 30

/** `check(clientId)` takes one of the account's "send now" tokens for `scope`, or throws 429. */
export function createSendNowLimit(clock: Clock, perMinute = SEND_NOW_PER_MINUTE) {
  const limiter = memoryRateLimiter({ maxEntries: 100_000 })
  return (scope: 'channels' | 'webhooks', clientId: string) => {
    const r = limiter.take(`${scope}:${clientId}`, perMinute, clock.now())
    if (r.allowed) return
    const retry = String(Math.max(1, Math.ceil(r.retryAfterMs / 1000)))
    throw new AppError('rate_limited', `At most ${perMinute} test sends and resends per minute per account; retry in ${retry} s`, undefined, {
      'retry-after': retry,
    })
  }
}

export type SendNowLimit = ReturnType<typeof createSendNowLimit>
