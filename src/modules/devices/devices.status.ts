import type { DeviceStatus } from './devices.model'

/** What a device's last report says about it (the portal's badge, the live stream's `device.status`): the model's schema is its one source. */
export type { DeviceStatus }

/** the interval assumed for a device whose own is not known yet (a collector's default is 10 s; this errs on the kind side) */
export const DEFAULT_INTERVAL_MS = 60_000
/** online while the last report is at most this many intervals old */
export const ONLINE_INTERVALS = 2
/** stale (late, not yet given up on) up to this many intervals; offline beyond */
export const STALE_INTERVALS = 5

/**
 * A device's status from when it last reported and how often it reports: measured against its
 * own interval, so a device that reports every 5 minutes is not "offline" between reports and
 * one that reports every 10 s is noticed within a minute.
 */
export function deviceStatus(lastSeenMs: number | null, intervalMs: number | null, nowMs: number): DeviceStatus {
  if (lastSeenMs === null) return 'never'
  const interval = intervalMs !== null && intervalMs > 0 ? intervalMs : DEFAULT_INTERVAL_MS
  const age = nowMs - lastSeenMs
  if (age <= ONLINE_INTERVALS * interval) return 'online'
  if (age <= STALE_INTERVALS * interval) return 'stale'
  return 'offline'
}
