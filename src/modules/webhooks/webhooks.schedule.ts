/**
 * When a failed delivery is tried again. Attempt 1 goes at once; after each failure the next
 * waits the schedule's delay for that step, spread by ±JITTER so that the deliveries that failed
 * together (a receiver down for a minute) do not all come back in the same second. After the
 * last step fails the delivery is `failed` (about three days after the event); a resend starts
 * the schedule again.
 */
export const RETRY_DELAYS_MS = [
  5_000, // 5 s
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3600_000, // 2 h
  5 * 3600_000, // 5 h
  10 * 3600_000, // 10 h
  14 * 3600_000, // 14 h
  20 * 3600_000, // 20 h
  24 * 3600_000, // 24 h
] as const

/** attempts in one schedule: the first, then one per delay */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1
/** each delay is multiplied by a factor in [1 − JITTER, 1 + JITTER] */
export const JITTER = 0.2
/** a receiver's Retry-After is honoured up to this; beyond it the delivery would as good as stop */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000

/**
 * The delay before the attempt after `failedAttempts` failures of this schedule, or null when
 * the schedule is spent. `random` in [0, 1) picks the jitter; `retryAfterMs` (the receiver's
 * Retry-After) pushes it later, never earlier.
 */
export function retryDelay(failedAttempts: number, random: number, retryAfterMs: number | null = null): number | null {
  if (failedAttempts < 1 || failedAttempts >= MAX_ATTEMPTS) return null
  const base = RETRY_DELAYS_MS[failedAttempts - 1]!
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random))
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS))
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
