/**
 * The alert state machine, pure: what one series of one rule on one device does with a new
 * sample or with the passing of time. The runtime applies the decisions (writes, events,
 * notices); nothing here reads a clock or a table.
 */

export type Operator = '>' | '>=' | '<' | '<='

/** A rule's threshold as it applies to one device (its overrides merged in). */
export interface ThresholdParams {
  operator: Operator
  threshold: number
  /** where a firing alert resolves; equal to the threshold without hysteresis */
  recovery: number
  forMs: number
}

/** What the runtime remembers of a series that is not at rest. */
export interface SeriesState {
  state: 'pending' | 'firing'
  alertId: string
  /** when the value first crossed (start of pending) */
  since: number
  value: number
  /** time of the newest sample that carried the series */
  lastAt: number
  /** samples in a row of the rule's kind that lacked the series (a partition unmounted) */
  misses: number
}

export type Decision = 'none' | 'pending' | 'fire' | 'resolve' | 'cancel'

/** a pending alert whose data stopped this long ago does not fire on the duration alone */
export const STALE_MS = 5 * 60_000
/** samples in a row without the series before its firing alert resolves */
export const MISSES_TO_RESOLVE = 3

export function breaches(op: Operator, value: number, threshold: number): boolean {
  switch (op) {
    case '>':
      return value > threshold
    case '>=':
      return value >= threshold
    case '<':
      return value < threshold
    case '<=':
      return value <= threshold
  }
}

/**
 * Back on the healthy side of the recovery threshold, read with the rule's own operator:
 * `> 90` recovering at 85 resolves at 85 or below. Without hysteresis (recovery = threshold)
 * this is simply "no longer breaching".
 */
export const recovered = (p: ThresholdParams, value: number) => !breaches(p.operator, value, p.recovery)

/** A new sample of the series at `ts` with `value`. */
export function onSample(s: SeriesState | null, p: ThresholdParams, value: number, ts: number): Decision {
  if (s === null) {
    if (!breaches(p.operator, value, p.threshold)) return 'none'
    return p.forMs <= 0 ? 'fire' : 'pending'
  }
  if (s.state === 'pending') {
    if (!breaches(p.operator, value, p.threshold)) return 'cancel'
    return ts - s.since >= p.forMs ? 'fire' : 'none'
  }
  return recovered(p, value) ? 'resolve' : 'none'
}

/** Time passing with no new sample: a pending alert whose duration elapsed fires. */
export function onTick(s: SeriesState | null, p: ThresholdParams, now: number): Decision {
  if (s === null || s.state !== 'pending') return 'none'
  if (now - s.since < p.forMs) return 'none'
  return now - s.lastAt <= STALE_MS ? 'fire' : 'cancel'
}

/** A sample of the rule's kind that lacked the series: an alert of a series that went away resolves. */
export function onMissing(s: SeriesState): Decision {
  if (s.misses + 1 < MISSES_TO_RESOLVE) return 'none'
  return s.state === 'firing' ? 'resolve' : 'cancel'
}

/** The reporting interval assumed for a device until two samples tell its own. */
export const DEFAULT_INTERVAL_MS = 60_000

/** Offline: no sample for `intervals` reporting intervals. */
export function isOffline(lastSeenAt: number, intervalMs: number, intervals: number, now: number): boolean {
  return now - lastSeenAt > intervals * intervalMs
}

/**
 * A device's reporting interval from the gap between two samples: the smallest gap seen lately
 * (a missed sample must not stretch it), drifting up slowly when the device reports less often.
 */
export function nextInterval(current: number | null, gap: number): number | null {
  if (gap <= 0 || gap > 3_600_000) return current
  if (current === null || gap < current) return gap
  return Math.round(current * 0.9 + gap * 0.1)
}

export interface Forecast {
  /** hours until 100 % at the current trend; Infinity when not growing */
  hoursLeft: number
  /** percentage points per hour */
  slopePerHour: number
  current: number
}

const HOUR_MS = 3_600_000

/**
 * Least-squares line through the hourly averages of disk_used_percent: when it reaches 100 %.
 * Needs at least 3 points spanning 2 hours; null otherwise.
 */
export function forecastDiskFull(points: { t: number; avg: number }[]): Forecast | null {
  if (points.length < 3 || points.at(-1)!.t - points[0]!.t < 2 * HOUR_MS) return null
  const t0 = points[0]!.t
  const n = points.length
  let sx = 0
  let sy = 0
  let sxx = 0
  let sxy = 0
  for (const p of points) {
    const x = (p.t - t0) / HOUR_MS
    sx += x
    sy += p.avg
    sxx += x * x
    sxy += x * p.avg
  }
  const denom = n * sxx - sx * sx
  if (denom === 0) return null
  const slope = (n * sxy - sx * sy) / denom
  const current = points.at(-1)!.avg
  const hoursLeft = slope > 0 ? Math.max(0, (100 - current) / slope) : Number.POSITIVE_INFINITY
  return { hoursLeft, slopePerHour: slope, current }
}

/** Fires when the disk fills within `hours`; resolves (hysteresis) only when that is 1.5× further away. */
export function forecastDecision(firing: boolean, f: Forecast | null, hours: number): Decision {
  if (f === null) return 'none'
  if (!firing) return f.hoursLeft <= hours ? 'fire' : 'none'
  return f.hoursLeft > hours * 1.5 ? 'resolve' : 'none'
}
