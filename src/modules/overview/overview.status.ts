import type { DeviceStatus } from './overview.model'

/** The collector's default interval: the status of a device with one sample so far is judged by it. */
export const ASSUMED_INTERVAL_MS = 10_000
/** Seen within this many of its own intervals: online; within STALE_AFTER: stale; else offline. */
export const ONLINE_INTERVALS = 2
export const STALE_INTERVALS = 5

/**
 * A device's status by its own rhythm, not a fixed window: a collector posting every 10 s is
 * stale after 20 s of silence, one posting every 5 minutes only after 10 minutes.
 */
export function statusOf(lastSeenAt: number | null, intervalMs: number | null, now: number): DeviceStatus {
  if (lastSeenAt === null) return 'never'
  const interval = intervalMs && intervalMs > 0 ? intervalMs : ASSUMED_INTERVAL_MS
  const age = now - lastSeenAt
  if (age <= ONLINE_INTERVALS * interval) return 'online'
  if (age <= STALE_INTERVALS * interval) return 'stale'
  return 'offline'
}
