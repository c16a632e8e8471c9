import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import type { LevelName } from '../metrics/metrics.fields'
import type { ReadDisk } from './storage.disk'
import type { StorageReport } from './storage.model'
import { planPrune, rawDaysHeld, type PruneStep, type TierFigure } from './storage.plan'
import type { StorageSettings } from './storage.config'
import type { StorageStore } from './storage.store'

/** What the budget needs of the metric tiers (the metrics module's metrics.budget.ts fills it). */
export interface TierPort {
  /** brings the rollup tiers up to date, so that pruning raw samples loses none from the tiers */
  rollUp(): Promise<void>
  oldest(tier: LevelName): Awaitable<number | null>
  /** one bounded delete of every device's rows older than `cutoff`; how many went */
  pruneStep(tier: LevelName, cutoff: number): Awaitable<number>
  freePages(): Awaitable<number>
  vacuumStep(): Awaitable<void>
}

/** the metrics domain may answer either way: awaited */
type Awaitable<T> = T | Promise<T>

/** The cached figures: measuring is a scan of the whole file, so the jobs do it and requests read this. */
export interface StorageState {
  /** usedBytes: the database's pages in use when measured (or last settled) */
  usage: { at: number; usedBytes: number; tiers: TierFigure[]; restBytes: number } | null
  lastPrune: { at: number; deletedRows: number; tiers: LevelName[] } | null
  /** the warnings in force, each logged once when it starts and once when it ends */
  warnings: { disk: string | null; budget: string | null }
  running: Promise<void> | null
}

export interface StorageDeps {
  store: StorageStore
  /** bytes per table, indexes included: a scan of the whole file (on its own thread, storage.measurer.ts) */
  tableBytes(): Promise<Map<string, number>>
  metrics: TierPort
  /** the metric tiers, finest first, and their tables (STORAGE_TIERS) */
  tiers: readonly { tier: LevelName; tables: readonly string[] }[]
  readDisk: ReadDisk
  dataDir: string
  settings: StorageSettings
  clock: Clock
  logger: Logger
  state: StorageState
  /** lets requests through between two bounded steps */
  pause(): Promise<void>
  /**
   * the figures and the disk warning are this hub's (hubs on PostgreSQL, which prune nothing):
   * the storage jobs run on every hub rather than once across them
   */
  perHub?: boolean
}

export const newStorageState = (): StorageState => ({ usage: null, lastPrune: null, warnings: { disk: null, budget: null }, running: null })

/** A measure older than this, or than this much growth, is taken again before a pruning is planned from it. */
const FRESH_FOR_PLAN_MS = 10 * 60_000
const FRESH_GROWTH = 0.05
/** A bound on one run's statements, so a misjudged plan cannot hold the job; the next run goes on. */
const MAX_STEPS_PER_RUN = 5_000
const HOUR = 3_600_000
/** cut-offs advance at most this many slices per step, so every device loses its oldest hour before anyone loses the next */
const MAX_SLICES = 64

const pct = (r: number) => `${Math.round(r * 100)}%`
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`

/** Space per tier from dbstat, the rest as every other page in use; the tiers' oldest times from the metrics module. */
export async function measure(deps: StorageDeps): Promise<void> {
  const perTable = await deps.tableBytes()
  const tiers: TierFigure[] = []
  for (const { tier, tables } of deps.tiers)
    tiers.push({ tier, bytes: tables.reduce((sum, t) => sum + (perTable.get(t) ?? 0), 0), oldest: await deps.metrics.oldest(tier) })
  // the rest is every other page in use: other tables, the schema, and the pointer-map pages of incremental vacuum
  const usedBytes = await deps.store.usedBytes()
  const restBytes = Math.max(0, usedBytes - tiers.reduce((s, t) => s + t.bytes, 0))
  deps.state.usage = { at: deps.clock.now(), usedBytes, tiers, restBytes }
}

/** The budget in bytes now (a share follows the disk's size), or null without one. */
export function budgetBytes(deps: Pick<StorageDeps, 'settings' | 'readDisk' | 'dataDir'>): number | null {
  const b = deps.settings.budget
  if (!b) return null
  return b.kind === 'bytes' ? b.bytes : Math.floor(b.share * deps.readDisk(deps.dataDir).totalBytes)
}

/** Sets a warning; logs it when it starts (with what to do) and when it ends, never in between. */
function setWarning(deps: StorageDeps, key: 'disk' | 'budget', message: string | null, fields: Record<string, unknown>) {
  const was = deps.state.warnings[key]
  deps.state.warnings[key] = message
  if (message && !was) deps.logger.warn(message, fields)
  else if (!message && was)
    deps.logger.info(key === 'disk' ? 'the data dir’s disk is below its warning level again' : 'the data fits the storage budget again', fields)
}

/** The data dir's disk against VIGIL_STORAGE_DISK_WARN. */
export function checkDisk(deps: StorageDeps): void {
  const disk = deps.readDisk(deps.dataDir)
  const warn = deps.settings.diskWarnRatio
  const full = disk.usedRatio >= warn
  const message = full
    ? `the disk holding the data dir is ${pct(disk.usedRatio)} full (VIGIL_STORAGE_DISK_WARN is ${Number((warn * 100).toFixed(2))}%): when it fills, Vigil refuses new samples. Free space on it, or set VIGIL_STORAGE_BUDGET (e.g. 25%) so Vigil removes its oldest samples first`
    : null
  setWarning(deps, 'disk', message, { data_dir: deps.dataDir, used_ratio: Number(disk.usedRatio.toFixed(4)), warn_ratio: warn })
}

/** The current warning for /health and the operator page: the disk first, then the budget. */
export const storageWarning = (state: StorageState) => state.warnings.disk ?? state.warnings.budget

/** Whether the cached figures are too old, or the database has grown too much since, to plan from. */
function stale(deps: StorageDeps, usedNow: number): boolean {
  const usage = deps.state.usage
  return !usage || deps.clock.now() - usage.at > FRESH_FOR_PLAN_MS || Math.abs(usedNow - usage.usedBytes) > usedNow * FRESH_GROWTH
}

/**
 * One run of the budget: the disk checked, and when the data passes the budget, the plan's cut-offs
 * applied tier by tier, each advanced from the tier's oldest time in slices of the whole fleet,
 * in bounded deletes with a pause between them; the freed pages go back to the file system.
 * Runs one at a time: a second caller waits for the run in progress.
 */
export function enforceBudget(deps: StorageDeps): Promise<void> {
  deps.state.running ??= runBudget(deps).finally(() => {
    deps.state.running = null
  })
  return deps.state.running
}

async function runBudget(deps: StorageDeps): Promise<void> {
  checkDisk(deps)
  const budget = budgetBytes(deps)
  if (deps.state.usage === null) await measure(deps)
  if (budget === null) return
  const before = await deps.store.usedBytes()
  if (before <= budget) {
    setWarning(deps, 'budget', null, { budget_bytes: budget, used_bytes: before })
    return
  }
  // the tiers brought up to date first: no raw sample is pruned before it is rolled up, and the
  // plan counts the rows that adds
  await deps.metrics.rollUp()
  const used = await deps.store.usedBytes()
  if (stale(deps, used)) await measure(deps)
  const now = deps.clock.now()
  const plan = planPrune({ now, budgetBytes: budget, usedBytes: used, tiers: deps.state.usage!.tiers })
  if (plan.steps.length === 0) return setShort(deps, budget, plan.short > 0 ? used : 0, used)
  let deleted = 0
  let steps = 0
  for (const step of plan.steps) {
    const from = deps.state.usage!.tiers.find((t) => t.tier === step.tier)?.oldest ?? step.cutoff
    const slice = Math.max(HOUR, Math.ceil((step.cutoff - from) / MAX_SLICES))
    for (let cut = Math.min(from + slice, step.cutoff); steps < MAX_STEPS_PER_RUN; cut = Math.min(cut + slice, step.cutoff)) {
      for (let n = -1; n !== 0 && steps < MAX_STEPS_PER_RUN; steps++) {
        n = await deps.metrics.pruneStep(step.tier, cut)
        deleted += n
        await deps.pause()
      }
      if (cut >= step.cutoff) break
    }
  }
  for (let i = 0; i < MAX_STEPS_PER_RUN && (await deps.metrics.freePages()) > 0; i++) {
    await deps.metrics.vacuumStep()
    await deps.pause()
  }
  await settle(deps, plan.steps)
  const after = await deps.store.usedBytes()
  deps.state.lastPrune = { at: deps.clock.now(), deletedRows: deleted, tiers: plan.steps.map((s) => s.tier) }
  // a budget that stays short prunes a little every minute: said once (the warning), then quietly
  const log = deps.state.warnings.budget ? deps.logger.debug : deps.logger.info
  log.call(deps.logger, 'storage budget: oldest data removed', {
    budget_bytes: budget,
    used_bytes_before: used,
    used_bytes_after: after,
    rows: deleted,
    tiers: plan.steps.map((s) => `${s.tier} before ${new Date(s.cutoff).toISOString()}`),
  })
  setShort(deps, budget, plan.short > 0 && after > budget ? after : 0, after)
}

/** The budget's warning: set while what is never pruned (`kept` bytes) passes it, cleared at 0. */
function setShort(deps: StorageDeps, budget: number, kept: number, used: number) {
  const message = kept
    ? `the storage budget (VIGIL_STORAGE_BUDGET=${deps.settings.budget!.text}, ${mb(budget)}) is smaller than what Vigil never prunes (${mb(kept)}: the newest hour of raw samples, a day of 1-minute, a week of 10-minute and a month of hourly buckets, the daily tier, and the accounts, alerts and deliveries): raise the budget, or lower the retention settings`
    : null
  setWarning(deps, 'budget', message, { budget_bytes: budget, used_bytes: used })
}

/**
 * The cached figures after a pruning: measured again when the measure is old, else the planned
 * bytes taken off each tier and its oldest time read again (a seek per device), so a budget
 * that stays short, pruning a little every minute, does not scan the whole file every minute.
 */
async function settle(deps: StorageDeps, steps: PruneStep[]) {
  const usage = deps.state.usage
  if (!usage || deps.clock.now() - usage.at > FRESH_FOR_PLAN_MS) return measure(deps)
  usage.usedBytes = await deps.store.usedBytes()
  for (const step of steps) {
    const tier = usage.tiers.find((t) => t.tier === step.tier)
    if (!tier) continue
    tier.bytes = Math.max(0, tier.bytes - step.bytes)
    tier.oldest = await deps.metrics.oldest(step.tier)
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** What the operator page shows; reads the cached measure and the free page counts only. */
export async function storageReport(deps: StorageDeps): Promise<StorageReport> {
  const disk = deps.readDisk(deps.dataDir)
  const used = await deps.store.usedBytes()
  const usage = deps.state.usage
  const tiers = usage?.tiers ?? deps.tiers.map(({ tier }) => ({ tier, bytes: 0, oldest: null }))
  const budget = budgetBytes(deps)
  const raw = tiers.find((t) => t.tier === 'raw')
  const last = deps.state.lastPrune
  return {
    measured_at: iso(usage?.at ?? null),
    database_bytes: used,
    tiers: tiers.map((t) => ({ tier: t.tier, bytes: t.bytes, oldest_at: iso(t.oldest) })),
    rest_bytes: usage?.restBytes ?? 0,
    budget:
      budget === null
        ? null
        : {
            setting: deps.settings.budget!.text,
            bytes: budget,
            used_ratio: used / budget,
            raw_days_held: raw && usage ? rawDaysHeld({ now: deps.clock.now(), budgetBytes: budget, usedBytes: used, raw }) : null,
            short_bytes: deps.state.warnings.budget ? Math.max(0, used - budget) : 0,
          },
    disk: { total_bytes: disk.totalBytes, available_bytes: disk.availableBytes, used_ratio: disk.usedRatio, warn_ratio: deps.settings.diskWarnRatio },
    last_prune: last ? { at: iso(last.at)!, deleted_rows: last.deletedRows, tiers: last.tiers } : null,
    warning: storageWarning(deps.state),
  }
}

/** The storage gauges for GET /metrics (one scrape: the page counts and statfs, no scan). */
export async function storageGauges(deps: StorageDeps): Promise<{ name: string; help: string; labels?: [string, string][]; value: number }[]> {
  const r = await storageReport(deps)
  const out: { name: string; help: string; labels?: [string, string][]; value: number }[] = [
    {
      name: 'vigil_storage_disk_free_ratio',
      help: 'Share of the disk holding the data dir still free to write (as df counts it)',
      value: 1 - r.disk.used_ratio,
    },
    {
      name: 'vigil_storage_disk_warn_used_ratio',
      help: 'VIGIL_STORAGE_DISK_WARN: the share of that disk in use from which the hub warns',
      value: r.disk.warn_ratio,
    },
  ]
  // none before the first measure: a zero would read as an empty tier
  if (r.measured_at !== null) {
    for (const t of r.tiers)
      out.push({
        name: 'vigil_storage_tier_bytes',
        help: 'Bytes each part of the database uses (as last measured)',
        labels: [['tier', t.tier]],
        value: t.bytes,
      })
    out.push({ name: 'vigil_storage_tier_bytes', help: '', labels: [['tier', 'rest']], value: r.rest_bytes })
  }
  if (r.budget) {
    out.push({ name: 'vigil_storage_budget_bytes', help: 'VIGIL_STORAGE_BUDGET in bytes', value: r.budget.bytes })
    out.push({
      name: 'vigil_storage_budget_used_ratio',
      help: 'Bytes the database uses over the storage budget (pruning starts above 1)',
      value: r.budget.used_ratio,
    })
    if (r.budget.raw_days_held !== null)
      out.push({ name: 'vigil_storage_raw_days_held', help: 'Days of raw samples the budget holds at the current rate', value: r.budget.raw_days_held })
  }
  return out
}
