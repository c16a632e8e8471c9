import { describe, expect, test } from 'bun:test'
import {
  forecastDecision,
  forecastDiskFull,
  isOffline,
  nextInterval,
  onMissing,
  onSample,
  onTick,
  STALE_MS,
  type Decision,
  type SeriesState,
  type ThresholdParams,
} from '../../../src/modules/alerts/runtime/alerts.evaluator'

const P = (over: Partial<ThresholdParams> = {}): ThresholdParams => ({ operator: '>', threshold: 90, recovery: 90, forMs: 0, ...over })
const S = (state: 'pending' | 'firing', since = 0, over: Partial<SeriesState> = {}): SeriesState => ({
  state,
  alertId: 'alr_1',
  since,
  value: 0,
  lastAt: since,
  misses: 0,
  ...over,
})

describe('onSample: thresholds, durations, hysteresis', () => {
  const cases: [string, SeriesState | null, ThresholdParams, number, number, Decision][] = [
    ['below the threshold at rest', null, P(), 50, 0, 'none'],
    ['at the threshold with > does not trip', null, P(), 90, 0, 'none'],
    ['at the threshold with >= trips', null, P({ operator: '>=' }), 90, 0, 'fire'],
    ['above, no duration: fires at once', null, P(), 95, 0, 'fire'],
    ['above, with a duration: pending', null, P({ forMs: 300_000 }), 95, 0, 'pending'],
    ['pending, still above, duration not elapsed', S('pending', 0), P({ forMs: 300_000 }), 95, 299_999, 'none'],
    ['pending, still above, duration elapsed', S('pending', 0), P({ forMs: 300_000 }), 95, 300_000, 'fire'],
    ['pending, back below: cancelled', S('pending', 0), P({ forMs: 300_000 }), 80, 100_000, 'cancel'],
    ['firing, still above', S('firing'), P(), 95, 10, 'none'],
    ['firing, at the threshold without hysteresis: resolves', S('firing'), P(), 90, 10, 'resolve'],
    ['firing, between recovery and threshold: stays (hysteresis)', S('firing'), P({ recovery: 85 }), 87, 10, 'none'],
    ['firing, at the recovery threshold: resolves', S('firing'), P({ recovery: 85 }), 85, 10, 'resolve'],
    ['below-rules: < trips under the threshold', null, P({ operator: '<', threshold: 10, recovery: 20 }), 5, 0, 'fire'],
    ['below-rules: recovery above', S('firing'), P({ operator: '<', threshold: 10, recovery: 20 }), 15, 10, 'none'],
    ['below-rules: recovered past 20', S('firing'), P({ operator: '<', threshold: 10, recovery: 20 }), 21, 10, 'resolve'],
    ['<= at the threshold trips', null, P({ operator: '<=', threshold: 0, recovery: 0 }), 0, 0, 'fire'],
  ]
  for (const [name, s, p, v, ts, want] of cases) test(name, () => expect(onSample(s, p, v, ts)).toBe(want))
})

describe('onTick: durations elapsing without a new sample', () => {
  const cases: [string, SeriesState | null, ThresholdParams, number, Decision][] = [
    ['nothing at rest', null, P({ forMs: 60_000 }), 1e9, 'none'],
    ['firing is left alone', S('firing'), P(), 1e9, 'none'],
    ['pending before the duration', S('pending', 0, { lastAt: 30_000 }), P({ forMs: 60_000 }), 59_999, 'none'],
    ['pending, duration elapsed, data fresh', S('pending', 0, { lastAt: 30_000 }), P({ forMs: 60_000 }), 60_000, 'fire'],
    ['pending, duration elapsed, data stale', S('pending', 0, { lastAt: 0 }), P({ forMs: 60_000 }), STALE_MS + 1, 'cancel'],
  ]
  for (const [name, s, p, now, want] of cases) test(name, () => expect(onTick(s, p, now)).toBe(want))
})

test('a series that stops being reported resolves after 3 samples without it', () => {
  expect(onMissing(S('firing', 0, { misses: 0 }))).toBe('none')
  expect(onMissing(S('firing', 0, { misses: 1 }))).toBe('none')
  expect(onMissing(S('firing', 0, { misses: 2 }))).toBe('resolve')
  expect(onMissing(S('pending', 0, { misses: 2 }))).toBe('cancel')
})

describe('offline and the reporting interval', () => {
  const cases: [string, number, number, number, number, boolean][] = [
    ['within 5 intervals', 0, 10_000, 5, 50_000, false],
    ['past 5 intervals', 0, 10_000, 5, 50_001, true],
    ['a slower device waits longer', 0, 60_000, 5, 200_000, false],
  ]
  for (const [name, last, interval, n, now, want] of cases) test(name, () => expect(isOffline(last, interval, n, now)).toBe(want))
  test('the interval is the smallest recent gap, drifting up slowly, ignoring nonsense', () => {
    expect(nextInterval(null, 10_000)).toBe(10_000)
    expect(nextInterval(10_000, 30_000)).toBe(12_000) // a missed sample stretches it a little only
    expect(nextInterval(12_000, 10_000)).toBe(10_000)
    expect(nextInterval(10_000, 0)).toBe(10_000)
    expect(nextInterval(10_000, 5 * 3_600_000)).toBe(10_000)
  })
})

describe('disk-full forecast from hourly averages', () => {
  const H = 3_600_000
  const line = (start: number, perHour: number, hours: number) => Array.from({ length: hours }, (_, i) => ({ t: i * H, avg: start + perHour * i }))
  test('a steady climb of 1 point an hour from 50 % after 24 h: 27 h left', () => {
    const f = forecastDiskFull(line(50, 1, 24))!
    expect(f.slopePerHour).toBeCloseTo(1, 6)
    expect(f.current).toBe(73)
    expect(f.hoursLeft).toBeCloseTo(27, 6)
  })
  test('flat or shrinking: never', () => {
    expect(forecastDiskFull(line(60, 0, 24))!.hoursLeft).toBe(Number.POSITIVE_INFINITY)
    expect(forecastDiskFull(line(60, -0.5, 24))!.hoursLeft).toBe(Number.POSITIVE_INFINITY)
  })
  test('too little data: no forecast', () => {
    expect(forecastDiskFull(line(50, 1, 2))).toBeNull()
    expect(
      forecastDiskFull([
        { t: 0, avg: 1 },
        { t: 1000, avg: 2 },
        { t: 2000, avg: 3 },
      ]),
    ).toBeNull()
  })
  const cases: [string, boolean, number | null, number, Decision][] = [
    ['fills within the window: fires', false, 27, 48, 'fire'],
    ['fills after the window', false, 60, 48, 'none'],
    ['firing, now 60 h away: still within 1.5× (hysteresis)', true, 60, 48, 'none'],
    ['firing, now 80 h away: resolves', true, 80, 48, 'resolve'],
    ['firing, no longer growing: resolves', true, Number.POSITIVE_INFINITY, 48, 'resolve'],
    ['no forecast: nothing', true, null, 48, 'none'],
  ]
  for (const [name, firing, hours, window, want] of cases) {
    test(name, () => expect(forecastDecision(firing, hours === null ? null : { hoursLeft: hours, slopePerHour: 1, current: 50 }, window)).toBe(want))
  }
})
