import { LEVEL, type LevelName, type MetricKind } from './metrics.fields'
import { pruneSizer, runRollup, vacuumSizer, type MetricsJobDeps } from './metrics.jobs'

const KINDS: MetricKind[] = ['hardware', 'network']

/**
 * The disk budget shrinks the SQLite file (src/modules/storage): its deletes run on SQLite, whose
 * store answers at once. A PostgreSQL hub refuses a budget at start (its retention drops day
 * partitions instead), so only the measure, the tiers' oldest times, reaches these there.
 */
function now<T>(v: T | Promise<T>): T {
  if (v instanceof Promise) throw new Error('the disk budget prunes on SQLite only')
  return v
}

/**
 * What the disk budget (src/modules/storage) asks of the metric tiers: how old their oldest data
 * is over the whole fleet, and a delete of what is older than a cut-off, through the same bounded
 * statements the fixed retention uses (batches sized to hold the event loop about 10 ms, so the
 * write lock is held for milliseconds). The storage module never sees a table.
 */
export function metricsBudget(deps: MetricsJobDeps) {
  const levels = (tier: LevelName) => LEVEL[tier]
  const vacuum = vacuumSizer()
  const batch = pruneSizer(deps.elapsed)
  /** one batch, sized by how long the last one took; fewer rows than asked: nothing older is left */
  const pruneBatch = (kind: MetricKind, level: number, seqs: number[], cutoff: number) => {
    const limit = batch.size
    const rows = batch.run((size) => now(deps.rollups.pruneBatch(kind, level, seqs, cutoff, size)))
    return { rows, done: rows < limit }
  }
  return {
    /** folds what the tiers lack (late samples, replays) into them, so no raw sample is pruned before it is rolled up */
    rollUp: () => runRollup(deps),
    /**
     * the time (ms) of the oldest row the tier holds for any device, or null when empty; on either
     * engine (PostgreSQL's raw samples are in metric_records' day partitions, its tiers in their tables)
     */
    async oldest(tier: LevelName): Promise<number | null> {
      const seqs = await deps.devices.seqs()
      let min: number | null = null
      for (const kind of KINDS) {
        const t = await deps.rollups.oldest(kind, levels(tier), seqs)
        if (t !== null && (min === null || t < min)) min = t
      }
      return min
    },
    /** deletes one bounded batch of every device's rows older than `cutoff`; returns how many */
    async pruneStep(tier: LevelName, cutoff: number): Promise<number> {
      const seqs = deps.devices.seqs()
      // raw samples of both kinds share one table, pruned under 'hardware' (as runRetention does)
      // and the sealed blocks wholly before the cut-off once the rows are through (rows are what it counts)
      if (tier === 'raw') {
        const { rows, done } = pruneBatch('hardware', LEVEL.raw, seqs, cutoff)
        if (done) await deps.blocks?.prune(cutoff)
        return rows
      }
      let n = 0
      for (const kind of KINDS) n += pruneBatch(kind, levels(tier), seqs, cutoff).rows
      return n
    },
    freePages: () => deps.rollups.freePages(),
    /** returns a slice of the free pages to the file system (incremental vacuum), sized to hold the event loop briefly */
    vacuumStep: () => vacuum.run((pages) => deps.rollups.vacuumStep(pages)),
  }
}

export type MetricsBudget = ReturnType<typeof metricsBudget>
