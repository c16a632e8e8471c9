import type { Config } from '../../config'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { LEVEL, MINUTE_MS, TIERS, levelName, type LevelName, type MetricKind, type TierName } from './metrics.fields'
import { rollupAll, type RollupOptions } from './metrics.rollup'
import type { BlockStore } from './metrics.block.store'
import { PRUNE_BATCH, type RollupPort } from './metrics.rollup.store'
import type { MetricDevices } from './metrics.service'
import type { LateSpans } from './metrics.late.store'
import { yieldToRequests } from '../../lib/yield'
import { stepSizer } from '../../lib/step-sizer'

type Retention = Config['metricsRetention']

export interface MetricsJobDeps {
  rollups: RollupPort
  /** the sealed blocks: dropped with the raw rows they belong to */
  blocks?: Pick<BlockStore, 'prune'>
  devices: Pick<MetricDevices, 'seqs'>
  /** the late samples stored and not rolled up yet (metric_late): claimed before a run, finished after it */
  writer: {
    claimLateSpan: LateSpans['claim']
    finishLateSpan: LateSpans['finish']
  }
  clock: Clock
  retention: Retention
  logger: Logger
  /**
   * the pause between bounded steps of the rollups and the pruning; default a turn of the event
   * loop (`vigil serve` on SQLite also keeps the WAL within a bound: src/db/bulk-pause.ts)
   */
  pause?: () => Promise<void>
  /** the clock the deletes' batches are timed on (default performance.now; not the service clock, which tests hold still) */
  elapsed?: () => number
}

/** A bound on one run's deletes per table, so a misconfiguration cannot spin forever; the next run continues. */
const MAX_ROWS_PER_TABLE = 2_000 * PRUNE_BATCH
/** the same for the vacuum's slices: 400 GB at its largest slice, far more than a run frees */
const MAX_VACUUM_STEPS = 50_000

/** the vacuum's slices: each about VACUUM_STEP_MS on the event loop, up to 8 MB at 4 KB pages */
export const vacuumSizer = () => stepSizer({ first: 128, min: 16, max: 2_000, targetMs: VACUUM_STEP_MS })
const VACUUM_STEP_MS = 10

/**
 * The deletes' batches: each about PRUNE_STEP_MS on the event loop, up to PRUNE_BATCH rows. A
 * batch of 5,000 raw samples held it about 30 ms on the 2.0 GHz test machine's SSD, and a slower
 * card takes several times that.
 */
export const pruneSizer = (now?: () => number) => stepSizer({ first: 500, min: 50, max: PRUNE_BATCH, targetMs: PRUNE_STEP_MS, now })
const PRUNE_STEP_MS = 10

/** The level each tier is rolled from, by the setting that keeps it. */
const SOURCE_RETENTION: Record<TierName, keyof Retention> = { '1m': 'raw', '10m': 'm1', '1h': 'm10', '1d': 'h1' }

/**
 * The spans each tier is rolled in: whole spans only where the level below keeps its rows well
 * past one (a VIGIL_RETENTION_RAW of a few minutes would prune samples the 1-minute tier has not
 * rolled yet); else bucket by bucket.
 */
function fittedSteps(steps: RollupOptions['steps'], retention: Retention): RollupOptions['steps'] {
  if (!steps) return steps
  const out: RollupOptions['steps'] = {}
  for (const [tier, ms] of Object.entries(steps) as [TierName, number][]) {
    if (retention[SOURCE_RETENTION[tier]] * 1000 > ms + 2 * MINUTE_MS) out[tier] = ms
  }
  return out
}

/** `steps`: the spans each tier is rolled in, where a bench compares them (else the store's) */
export async function runRollup(deps: MetricsJobDeps, opts: { steps?: RollupOptions['steps'] } = {}): Promise<void> {
  const late = { hardware: await deps.writer.claimLateSpan('hardware'), network: await deps.writer.claimLateSpan('network') }
  await rollupAll(deps.rollups, {
    steps: fittedSteps(opts.steps ?? deps.rollups.steps, deps.retention),
    now: deps.clock.now(),
    devices: deps.devices.seqs(),
    late,
    rawRetentionMs: deps.retention.raw * 1000,
    pause: deps.pause ?? yieldToRequests,
  })
  // only once their buckets are rolled: a run stopped before (a crash, an error) leaves them for the next
  for (const kind of ['hardware', 'network'] as const) if (late[kind]) await deps.writer.finishLateSpan(kind)
}

/** Each level's setting in the configuration (seconds). */
const RETENTION_SETTING: Record<LevelName, keyof Retention> = { raw: 'raw', '1m': 'm1', '10m': 'm10', '1h': 'h1', '1d': 'd1' }

/** How long each level keeps its rows, in ms. */
export function retentionMs(retention: Retention): Record<LevelName, number> {
  const out = {} as Record<LevelName, number>
  for (const [level, setting] of Object.entries(RETENTION_SETTING) as [LevelName, keyof Retention][]) out[level] = retention[setting] * 1000
  return out
}

/**
 * Deletes what each level keeps no longer, in bounded batches with a pause between them (no
 * long write lock), then lets SQLite refresh its statistics and return the freed pages to the
 * file system a slice at a time, so the file shrinks.
 */
export async function runRetention(deps: MetricsJobDeps): Promise<number> {
  const now = deps.clock.now()
  const seqs = deps.devices.seqs()
  const pause = deps.pause ?? yieldToRequests
  let total = 0
  for (const kind of ['hardware', 'network'] as MetricKind[]) {
    for (let level = LEVEL.raw; level <= TIERS.length; level++) {
      if (level === LEVEL.raw && kind === 'network') continue // one raw table holds both kinds
      const cutoff = now - deps.retention[RETENTION_SETTING[levelName(level)]] * 1000
      const batch = pruneSizer(deps.elapsed)
      for (let rows = 0; rows < MAX_ROWS_PER_TABLE; ) {
        const limit = batch.size
        const n = await batch.run((size) => deps.rollups.pruneBatch(kind, level, seqs, cutoff, size))
        rows += n
        total += n
        if (n < limit) break
        await pause()
      }
    }
  }
  total += (await deps.blocks?.prune(now - deps.retention.raw * 1000)) ?? 0
  // PostgreSQL's day partitions for the days ahead: made here, once across hubs, as the run is
  await deps.rollups.ahead?.(now, now - deps.retention.raw * 1000)
  deps.rollups.optimize()
  const vacuum = vacuumSizer()
  for (let i = 0; i < MAX_VACUUM_STEPS && deps.rollups.freePages() > 0; i++) {
    vacuum.run((pages) => deps.rollups.vacuumStep(pages))
    await pause()
  }
  deps.logger.debug('metrics pruned', { rows: total })
  return total
}
