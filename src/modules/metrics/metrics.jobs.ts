import type { Config } from '../../config'
import type { DbHandle } from '../../db/connection'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { TIERS, type MetricKind } from './metrics.fields'
import { levelTable, levelTimeColumn, rollupAll } from './metrics.rollup'
import { metricWriter } from './metrics.writer'

export interface MetricsJobDeps {
  db: DbHandle
  clock: Clock
  config: Pick<Config, 'metricsRetention'>
  logger?: Logger
}

/** Rows deleted per statement: small enough that the write lock is held for milliseconds. */
export const PRUNE_BATCH = 5_000
/** Pages returned to the file system per step (8 MB at the default 4 KB page size). */
const VACUUM_PAGES = 2_000
/** A bound on one run, so a misconfiguration cannot spin forever; the next run continues. */
const MAX_BATCHES_PER_TABLE = 2_000

const yieldToRequests = () => new Promise<void>((r) => setImmediate(r))

export async function runRollup(deps: MetricsJobDeps): Promise<void> {
  const now = deps.clock.now()
  const w = metricWriter(deps.db.sqlite, () => deps.clock.now())
  await rollupAll(deps.db.sqlite, {
    now,
    lateFrom: { hardware: w.takeOldestWritten('hardware'), network: w.takeOldestWritten('network') },
    rawRetentionMs: deps.config.metricsRetention.raw * 1000,
    pause: yieldToRequests,
  })
}

function retentionMs(config: MetricsJobDeps['config'], level: number): number {
  const r = config.metricsRetention
  return [r.raw, r.m1, r.m10, r.h1, r.d1][level]! * 1000
}

/**
 * Deletes what each level keeps no longer, in bounded batches with a pause between them (no
 * long write lock), then lets SQLite refresh its statistics and return the freed pages to the
 * file system (auto_vacuum=INCREMENTAL), so the file shrinks.
 */
export async function runRetention(deps: MetricsJobDeps): Promise<number> {
  const now = deps.clock.now()
  let total = 0
  for (const kind of ['hardware', 'network'] as MetricKind[]) {
    for (let level = 0; level <= TIERS.length; level++) {
      if (level === 0 && kind === 'network') continue // one raw table holds both kinds
      const table = levelTable(kind, level)
      const col = levelTimeColumn(level)
      const del = deps.db.sqlite.query(
        `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE device_seq IN (SELECT seq FROM devices WHERE seq IS NOT NULL) AND ${col} < ? LIMIT ${PRUNE_BATCH})`,
      )
      const cutoff = now - retentionMs(deps.config, level)
      for (let i = 0; i < MAX_BATCHES_PER_TABLE; i++) {
        const n = del.run(cutoff).changes
        total += n
        if (n < PRUNE_BATCH) break
        await yieldToRequests()
      }
    }
  }
  deps.db.sqlite.run('PRAGMA optimize')
  // give the freed pages back to the file system a slice at a time, not in one long lock
  const free = deps.db.sqlite.query<{ freelist_count: number }, []>('PRAGMA freelist_count')
  for (let i = 0; i < MAX_BATCHES_PER_TABLE && free.get()!.freelist_count > 0; i++) {
    deps.db.sqlite.run(`PRAGMA incremental_vacuum(${VACUUM_PAGES})`)
    await yieldToRequests()
  }
  deps.logger?.debug('metrics pruned', { rows: total })
  return total
}
