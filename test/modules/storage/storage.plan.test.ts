import { describe, expect, test } from 'bun:test'
import { BUDGET_TARGET, planPrune, rawDaysHeld, type TierFigure } from '../../../src/modules/storage/storage.plan'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const NOW = Date.UTC(2026, 10, 27, 12)
const MB = 1_000_000

/** A fleet's tiers: raw for `rawDays`, the rollups for their default lengths, sizes given. */
function tiers(sizes: { raw: number; m1: number; m10: number; h1: number; d1: number }, rawDays = 7): TierFigure[] {
  return [
    { tier: 'raw', bytes: sizes.raw, oldest: NOW - rawDays * DAY },
    { tier: '1m', bytes: sizes.m1, oldest: NOW - 3 * DAY },
    { tier: '10m', bytes: sizes.m10, oldest: NOW - 30 * DAY },
    { tier: '1h', bytes: sizes.h1, oldest: NOW - 365 * DAY },
    { tier: '1d', bytes: sizes.d1, oldest: NOW - 5 * 365 * DAY },
  ]
}

describe('the pruning plan', () => {
  test('under the budget: nothing goes', () => {
    const plan = planPrune({
      now: NOW,
      budgetBytes: 100 * MB,
      usedBytes: 100 * MB,
      tiers: tiers({ raw: 70 * MB, m1: 10 * MB, m10: 5 * MB, h1: 2 * MB, d1: MB }),
    })
    expect(plan).toEqual({ steps: [], short: 0 })
  })

  test('over it: the oldest raw data goes first, enough to come down to the target, and no rollup is touched', () => {
    // 7 days of raw in 70 MB: 10 MB a day; 110 MB used of 100: down to 95 takes 15 MB, a day and a half
    const plan = planPrune({
      now: NOW,
      budgetBytes: 100 * MB,
      usedBytes: 110 * MB,
      tiers: tiers({ raw: 70 * MB, m1: 10 * MB, m10: 5 * MB, h1: 2 * MB, d1: MB }),
    })
    expect(plan.short).toBe(0)
    expect(plan.steps).toEqual([{ tier: 'raw', cutoff: NOW - 7 * DAY + 1.5 * DAY, bytes: 110 * MB - 100 * MB * BUDGET_TARGET }])
  })

  test('raw alone not enough: raw down to its newest hour, then the finer tiers in order, the daily tier never', () => {
    const plan = planPrune({
      now: NOW,
      budgetBytes: 10 * MB,
      usedBytes: 100 * MB,
      tiers: tiers({ raw: 70 * MB, m1: 10 * MB, m10: 5 * MB, h1: 2 * MB, d1: MB }),
    })
    expect(plan.steps.map((s) => [s.tier, s.cutoff])).toEqual([
      ['raw', NOW - HOUR],
      ['1m', NOW - DAY],
      ['10m', NOW - 7 * DAY],
      ['1h', NOW - 30 * DAY],
    ])
    // what must be kept (the floors, the daily tier and the rest) leaves it short, and says by how much
    const freed = plan.steps.reduce((a, s) => a + s.bytes, 0)
    expect(plan.short).toBe(100 * MB - 9.5 * MB - freed)
    expect(plan.short).toBeGreaterThan(0)
  })

  test('a tier with nothing older than its floor, or empty, is passed over for the next', () => {
    const figures: TierFigure[] = [
      { tier: 'raw', bytes: 5 * MB, oldest: NOW - HOUR / 2 },
      { tier: '1m', bytes: 0, oldest: null },
      { tier: '10m', bytes: 14 * MB, oldest: NOW - 14 * DAY },
    ]
    const plan = planPrune({ now: NOW, budgetBytes: 20 * MB, usedBytes: 21 * MB, tiers: figures })
    // 2 MB to go from 14 MB over 14 days: the oldest two days
    expect(plan.steps).toEqual([{ tier: '10m', cutoff: NOW - 12 * DAY, bytes: 2 * MB }])
  })

  test('the cut-off never reaches into what a tier keeps', () => {
    const plan = planPrune({ now: NOW, budgetBytes: 2 * MB, usedBytes: 50 * MB, tiers: [{ tier: 'raw', bytes: 48 * MB, oldest: NOW - 2 * HOUR }] })
    expect(plan.steps).toEqual([{ tier: 'raw', cutoff: NOW - HOUR, bytes: 24 * MB }])
    expect(plan.short).toBe(50 * MB - 1.9 * MB - 24 * MB)
  })
})

describe('days of raw data the budget holds', () => {
  const raw = (bytes: number, days: number): TierFigure => ({ tier: 'raw', bytes, oldest: NOW - days * DAY })

  test('the room beside everything else over the bytes raw takes a day', () => {
    // 10 MB a day; 100 MB budget with 30 MB of other data leaves 70 MB: 7 days
    expect(rawDaysHeld({ now: NOW, budgetBytes: 100 * MB, usedBytes: 50 * MB, raw: raw(20 * MB, 2) })).toBeCloseTo(7, 9)
  })

  test('none without a budget, without raw data or an hour of it; never below zero', () => {
    expect(rawDaysHeld({ now: NOW, budgetBytes: null, usedBytes: 50 * MB, raw: raw(20 * MB, 2) })).toBeNull()
    expect(rawDaysHeld({ now: NOW, budgetBytes: 100 * MB, usedBytes: 50 * MB, raw: { tier: 'raw', bytes: 0, oldest: null } })).toBeNull()
    expect(rawDaysHeld({ now: NOW, budgetBytes: 100 * MB, usedBytes: 50 * MB, raw: { tier: 'raw', bytes: MB, oldest: NOW - HOUR / 2 } })).toBeNull()
    expect(rawDaysHeld({ now: NOW, budgetBytes: 10 * MB, usedBytes: 50 * MB, raw: raw(20 * MB, 2) })).toBe(0)
  })
})
