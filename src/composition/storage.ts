import type { AppContext } from '../context'
import { metricsBudget } from '../modules/metrics/metrics.budget'
import { HOT_RECORD_FILES, STORAGE_TIERS, hotRecordBytes } from '../modules/metrics/metrics.usage'
import { readDisk } from '../modules/storage/storage.disk'
import { newStorageState, storageWarning, type StorageDeps } from '../modules/storage/storage.service'
import { createStorageStore } from '../modules/storage/storage.store'
import { tableBytes } from '../modules/storage/storage.measurer'
import type { Lookups } from './hooks'
import type { MonitoringModules } from './monitoring'

/**
 * The disk budget and the space the data uses, after the metrics: it prunes the metric tiers
 * through the metrics module's own bounded deletes. /health asks it for its warning (a lookup:
 * the health check is built first, with the identity group).
 */
export function wireStorage(ctx: AppContext, monitoring: MonitoringModules, lookups: Lookups): StorageDeps {
  const state = newStorageState()
  lookups.storageWarning.answer(() => storageWarning(state))
  const db = createStorageStore(ctx.db.sqlite)
  // the newest samples' record files count with the database (metrics.usage.ts)
  const hot = hotRecordBytes(ctx.db.sqlite)
  const store = { ...db, usedBytes: () => db.usedBytes() + hot() }
  const perTable = tableBytes(ctx.db.sqlite.filename, db.bytesPerTable, ctx.logger)
  return {
    store,
    tableBytes: async () => (await perTable()).set(HOT_RECORD_FILES, hot()),
    metrics: metricsBudget(monitoring.metricsJobs),
    tiers: STORAGE_TIERS,
    readDisk,
    dataDir: ctx.config.dataDir,
    settings: ctx.config.storage,
    clock: ctx.clock,
    logger: ctx.logger,
    state,
    pause: () => new Promise<void>((r) => setImmediate(r)),
  }
}
