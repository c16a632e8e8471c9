/**
 * When a failed delivery is tried again, for both queues (notification channels and webhooks):
 * each queue names its steps, the core spreads them with full jitter and reads Retry-After.
 */

/** no retry sooner than this, whatever the jitter drew */
export const MIN_RETRY_MS = 1000

/**
 * The delay before the attempt after `failedAttempts` failures of a schedule, or null when the
 * schedule is spent. Full jitter: a uniform draw in [MIN_RETRY_MS, step], so deliveries that
 * failed together (a receiver down for a minute) come back spread over the whole step instead
 * of in one burst. A receiver's Retry-After pushes it later (up to `maxRetryAfterMs`), never
 * earlier. `random` is in [0, 1).
 */
export function retryDelay(
  steps: readonly number[],
  failedAttempts: number,
  random: number,
  retryAfterMs: number | null = null,
  maxRetryAfterMs = Number.POSITIVE_INFINITY,
): number | null {
  if (failedAttempts < 1 || failedAttempts > steps.length) return null
  const step = steps[failedAttempts - 1]!
  const jittered = Math.max(MIN_RETRY_MS, Math.round(step * random))
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, maxRetryAfterMs))
}

/**
 * A Retry-After header as milliseconds from `now`: delay-seconds (a non-negative integer) or an
 * HTTP date. Null when absent or unreadable (a receiver's typo must not stop its retries).
 */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (header === null) return null
  const v = header.trim()
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000
  // an HTTP date names its weekday and zone; a bare number or word is not one
  if (!/^[A-Za-z]{3},/.test(v)) return null
  const at = Date.parse(v)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}
