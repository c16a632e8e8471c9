import type { LevelName } from '../metrics/metrics.fields'

/** One tier as the plan sees it: its bytes, and the time (ms) of its oldest data (null: empty). */
export interface TierFigure {
  tier: LevelName
  bytes: number
  oldest: number | null
}

/** Delete every device's data of `tier` older than `cutoff` (ms); about `bytes` are expected to go. */
export interface PruneStep {
  tier: LevelName
  cutoff: number
  bytes: number
}

export interface PlanInput {
  now: number
  budgetBytes: number
  /** the pages the whole database uses now, in bytes */
  usedBytes: number
  /** the metric tiers, finest first (STORAGE_TIERS' order) */
  tiers: TierFigure[]
}

export interface Plan {
  steps: PruneStep[]
  /** bytes still over the target once every step is done: what the budget cannot take from data it must keep */
  short: number
}

const HOUR = 3_600_000
const DAY = 24 * HOUR

/**
 * What the budget never takes, per tier: the newest hour of raw samples (the latest values, alert
 * windows, and what the rollup has yet to fold), a day of minutes, a week of 10-minute buckets,
 * a month of hours. The daily tier is never pruned by the budget: it is the smallest by far
 * (one row per device and day) and the last record of the past; its fixed retention applies.
 */
export const BUDGET_FLOOR_MS: Partial<Record<LevelName, number>> = { raw: HOUR, '1m': DAY, '10m': 7 * DAY, '1h': 30 * DAY }

/**
 * Pruning starts when the data passes the budget and brings it down to this share of it, so that
 * one sample over does not prune every minute.
 */
export const BUDGET_TARGET = 0.95

/**
 * Which data goes to bring the database under its budget: the oldest raw data first, then the
 * finer rollup tiers in order, each from its oldest time (the whole fleet's: a cut-off is a time,
 * and every device loses what is older, so no device keeps older data than another loses).
 * Sizes are taken as spread evenly over a tier's time span, which is what a steady fleet writes;
 * the job measures again after pruning and the next run corrects what the estimate missed.
 */
export function planPrune(input: PlanInput): Plan {
  if (input.usedBytes <= input.budgetBytes) return { steps: [], short: 0 }
  let excess = input.usedBytes - Math.floor(input.budgetBytes * BUDGET_TARGET)
  const steps: PruneStep[] = []
  for (const t of input.tiers) {
    const floor = BUDGET_FLOOR_MS[t.tier]
    if (excess <= 0) break
    if (floor === undefined || t.oldest === null || t.bytes <= 0) continue
    const span = Math.max(1, input.now - t.oldest)
    const keepFrom = input.now - floor
    if (keepFrom <= t.oldest) continue
    const prunable = Math.floor((t.bytes * (keepFrom - t.oldest)) / span)
    if (excess < prunable) {
      const cutoff = Math.min(keepFrom, t.oldest + Math.ceil((span * excess) / t.bytes))
      steps.push({ tier: t.tier, cutoff, bytes: excess })
      excess = 0
    } else {
      steps.push({ tier: t.tier, cutoff: keepFrom, bytes: prunable })
      excess -= prunable
    }
  }
  return { steps, short: Math.max(0, excess) }
}

/**
 * How many days of raw samples the budget holds at the current rate: the room the budget leaves
 * beside everything else, over the bytes raw samples take per day (their size over the time they
 * span). Null without a budget, or without an hour of raw data to measure a rate from.
 */
export function rawDaysHeld(input: { now: number; budgetBytes: number | null; usedBytes: number; raw: TierFigure }): number | null {
  const { raw } = input
  if (input.budgetBytes === null || raw.oldest === null || raw.bytes <= 0) return null
  const span = input.now - raw.oldest
  if (span < HOUR) return null
  const perDay = (raw.bytes * DAY) / span
  const room = input.budgetBytes - (input.usedBytes - raw.bytes)
  return Math.max(0, room / perDay)
}
