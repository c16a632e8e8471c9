import type { DeviceStatus } from './fleet'

// The hub's rule (src/modules/devices/devices.status.ts), kept here because the bundle takes no
// server code; test/web/presence.test.ts holds the two to the same answers.
const DEFAULT_INTERVAL_MS = 60_000
const ONLINE_INTERVALS = 2
const STALE_INTERVALS = 5

/**
 * A device's status from its last report and its own interval, at `now`. The badge and the "seen
 * 12 s ago" beside it are both worked out from one `now`, so they never disagree (a card said
 * "Stale" beside "Seen just now" when the status was the hub's from a few seconds before).
 */
export function presenceStatus(lastSeen: string | null, intervalSeconds: number | null, now: number): DeviceStatus {
  if (lastSeen === null) return 'never'
  const seen = Date.parse(lastSeen)
  if (Number.isNaN(seen)) return 'never'
  const interval = intervalSeconds !== null && intervalSeconds > 0 ? intervalSeconds * 1000 : DEFAULT_INTERVAL_MS
  const age = now - seen
  if (age <= ONLINE_INTERVALS * interval) return 'online'
  if (age <= STALE_INTERVALS * interval) return 'stale'
  return 'offline'
}

/** The moment to measure a report against: the clock, never before the report itself (a sample newer than the last tick is "just now"). */
export const nowFor = (clockNow: number, lastSeen: string | null) => {
  const seen = lastSeen ? Date.parse(lastSeen) : Number.NaN
  return Number.isNaN(seen) ? clockNow : Math.max(clockNow, seen)
}
