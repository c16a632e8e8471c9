import { retryDelay as coreRetryDelay } from '../deliveries/deliveries.schedule'

/**
 * The steps of a webhook delivery's retry schedule. Attempt 1 goes at once; after each failure
 * the next waits up to that step's delay (full jitter, deliveries/deliveries.schedule). After
 * the last step fails the delivery is `failed` (at most about three days after the event); a
 * resend starts the schedule again.
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
/** a receiver's Retry-After is honoured up to this; beyond it the delivery would as good as stop */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000

/** The delay before the attempt after `failedAttempts` failures of this schedule, or null when it is spent. */
export const retryDelay = (failedAttempts: number, random: number, retryAfterMs: number | null = null) =>
  coreRetryDelay(RETRY_DELAYS_MS, failedAttempts, random, retryAfterMs, MAX_RETRY_AFTER_MS)
