import { describe, expect, test } from 'bun:test'
import {
  autoLevel,
  estimatePoints,
  gapThreshold,
  medianGap,
  mergeColumns,
  SeriesBuilder,
  withGaps,
  type Columns,
} from '../../../src/modules/metrics/metrics.buckets'
import { LEVEL, levelName, type LevelName } from '../../../src/modules/metrics/metrics.fields'

const MIN = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000

describe('medianGap', () => {
  const cases: [string, number[], number | null][] = [
    ['none', [], null],
    ['one sample', [1000], null],
    ['duplicates only', [1000, 1000], null],
    ['steady 10 s, any order', [30_000, 0, 20_000, 10_000], 10_000],
    ['one outage does not move it', [0, 10_000, 20_000, 30_000, 600_000], 10_000],
    ['even count: mean of the middle two', [0, 10_000, 30_000], 15_000],
    ['a replayed burst does not move it', [0, 60_000, 120_000, 180_000, 180_100, 240_000], 60_000],
  ]
  for (const [name, times, want] of cases) test(name, () => expect(medianGap(times)).toBe(want))
})

describe('estimatePoints', () => {
  const cases: [string, number, number, number, number | null, number][] = [
    ['1 h raw at 10 s', LEVEL.raw, 0, HOUR, 10_000, 360],
    ['1 h raw, interval unknown: 10 s assumed', LEVEL.raw, 0, HOUR, null, 360],
    ['1 h at 1m', LEVEL['1m'], 0, HOUR, null, 60],
    ['unaligned start touches one more bucket', LEVEL['1m'], 30_000, HOUR, null, 60],
    ['unaligned end too', LEVEL['1m'], 30_000, HOUR + 1, null, 61],
    ['30 d at 1h', LEVEL['1h'], 0, 30 * DAY, null, 720],
    ['empty range', LEVEL['1h'], HOUR, HOUR, null, 0],
  ]
  for (const [name, level, from, to, interval, want] of cases) test(name, () => expect(estimatePoints(level, from, to, interval)).toBe(want))
})

describe('autoLevel', () => {
  const keepAll = { raw: 365 * DAY, '1m': 365 * DAY, '10m': 365 * DAY, '1h': 3650 * DAY, '1d': 3650 * DAY }
  const defaults = { raw: 7 * DAY, '1m': 3 * DAY, '10m': 30 * DAY, '1h': 365 * DAY, '1d': 5 * 365 * DAY }
  const now = 1000 * DAY
  const cases: [string, number, number, number | null, typeof keepAll, LevelName][] = [
    ['1 h: raw (360 samples)', now - HOUR, now, 10_000, keepAll, 'raw'],
    ['1 h of a 1 s device: 3,600 samples, still raw', now - HOUR, now, 1000, keepAll, 'raw'],
    ['4 h of a 1 s device: too many samples, 1m', now - 4 * HOUR, now, 1000, keepAll, '1m'],
    ['6 h: 1m (360)', now - 6 * HOUR, now, 10_000, keepAll, '1m'],
    ['24 h: 1m (1,440; 10m would be 144)', now - DAY, now, 10_000, keepAll, '1m'],
    ['7 d: 10m (1,008)', now - 7 * DAY, now, 10_000, keepAll, '10m'],
    ['30 d: 1h (720)', now - 30 * DAY, now, 10_000, keepAll, '1h'],
    ['2 y: 1d (730)', now - 730 * DAY, now, 10_000, keepAll, '1d'],
    ['1 y: 1h would be 8,760, 1d', now - 365 * DAY, now, 10_000, keepAll, '1d'],
    ['24 h five days ago: 1m is pruned there, 10m', now - 5 * DAY, now - 4 * DAY, 10_000, defaults, '10m'],
    ['1 h five days ago: 1m pruned, raw kept', now - 5 * DAY, now - 5 * DAY + HOUR, 10_000, defaults, 'raw'],
    ['1 h ten days ago: only the tiers', now - 10 * DAY, now - 10 * DAY + HOUR, 10_000, defaults, '10m'],
  ]
  test('with nested families (1,000 points at most) 24 h is 10m', () => {
    expect(levelName(autoLevel({ from: now - DAY, to: now, now, intervalMs: 10_000, retentionMs: keepAll, maxPoints: 1_000 }))).toBe('10m')
  })
  for (const [name, from, to, interval, retentionMs, want] of cases) {
    test(name, () => expect(levelName(autoLevel({ from, to, now, intervalMs: interval, retentionMs, maxPoints: 5_000 }))).toBe(want))
  }
})

describe('SeriesBuilder', () => {
  test('averages values per bucket, weighted by counts, with min and max', () => {
    const b = new SeriesBuilder(MIN, ['cpu'])
    b.at(0)
    b.add(0, 10)
    b.at(30_000)
    b.add(0, 20)
    b.at(MIN)
    b.addAggregate(0, 50, 3, 40, 70)
    b.at(MIN + 10_000)
    b.add(0, 10)
    b.at(2 * MIN) // a bucket where the field is missing
    b.at(3 * MIN)
    b.add(0, 1)
    expect(b.finish()).toEqual({
      t: [0, MIN, 2 * MIN, 3 * MIN],
      values: { cpu: [15, 40, null, 1] },
      min: { cpu: [10, 10, null, 1] },
      max: { cpu: [20, 70, null, 1] },
    })
  })

  test('at width 0 every time is a point; a series seen later starts with nulls', () => {
    const b = new SeriesBuilder(0)
    b.at(5)
    b.add(b.track('a'), 1)
    b.at(7)
    b.add(b.track('b'), 2)
    b.add(b.track('a'), 3)
    const c = b.finish()
    expect(c.t).toEqual([5, 7])
    expect(c.values).toEqual({ a: [1, 3], b: [null, 2] })
  })
})

describe('withGaps', () => {
  const cols = (t: number[]): Columns => ({ t, values: { x: t.map((v) => v) }, min: { x: t.map(() => 0) }, max: { x: t.map(() => 9) } })
  const cases: [string, number[], number, number | null, number[], (number | null)[]][] = [
    ['steady: unchanged', [0, 10, 20, 30], 10, 10, [0, 10, 20, 30], [0, 10, 20, 30]],
    ['one missing step joins', [0, 10, 30, 40], 10, 10, [0, 10, 30, 40], [0, 10, 30, 40]],
    ['two missing steps break', [0, 10, 40, 50], 10, 10, [0, 10, 20, 40, 50], [0, 10, null, 40, 50]],
    ['two outages', [0, 100, 200], 10, 10, [0, 10, 100, 110, 200], [0, null, 100, null, 200]],
    ['a slow device at a fine step: its own interval counts', [0, 300, 600], 60, 300, [0, 300, 600], [0, 300, 600]],
  ]
  for (const [name, t, step, interval, wantT, wantV] of cases) {
    test(name, () => {
      const out = withGaps(cols(t), gapThreshold(step, interval), step)
      expect(out.t).toEqual(wantT)
      expect(out.values.x).toEqual(wantV)
      expect(out.min.x).toHaveLength(wantT.length)
    })
  }
})

test('mergeColumns: the union of times, each series null where it had no point', () => {
  const a: Columns = { t: [0, 60, 120], values: { hot: [1, 2, 3] }, min: { hot: [1, 2, 3] }, max: { hot: [1, 2, 3] } }
  const b: Columns = { t: [60, 180], values: { nested: [5, 6] }, min: { nested: [5, 6] }, max: { nested: [5, 6] } }
  expect(mergeColumns(a, b)).toEqual({
    t: [0, 60, 120, 180],
    values: { hot: [1, 2, 3, null], nested: [null, 5, null, 6] },
    min: { hot: [1, 2, 3, null], nested: [null, 5, null, 6] },
    max: { hot: [1, 2, 3, null], nested: [null, 5, null, 6] },
  })
})
