import { ConfigError } from '../config'
import type { AppContext } from '../context'
import { metricsBudget } from '../modules/metrics/metrics.budget'
import { STORAGE_TIERS, metricFileBytes } from '../modules/metrics/metrics.usage'
import { postgresBudgetRefusal } from '../modules/storage/storage.config'
import { readDisk } from '../modules/storage/storage.disk'
import { newStorageState, storageWarning, type StorageDeps } from '../modules/storage/storage.service'
import { createStorageStore, sqliteStorage, type StorageStore } from '../modules/storage/storage.store'
import { createStorageStorePg } from '../modules/storage/storage.store.pg'
import { tableBytes } from '../modules/storage/storage.measurer'
import type { Lookups } from './hooks'
import type { MonitoringModules } from './monitoring'

/**
 * The disk budget and the space the data uses, after the metrics: it prunes the metric tiers
 * through the metrics module's own bounded deletes. /health asks it for its warning (a lookup:
 * the health check is built first, with the identity group). On PostgreSQL the figures are the
 * server's own, and a budget is refused (storage.config.ts says why).
 */
export function wireStorage(ctx: AppContext, monitoring: MonitoringModules, lookups: Lookups): StorageDeps {
  const state = newStorageState()
  lookups.storageWarning.answer(() => storageWarning(state))
  const { store, perTable } = ctx.pg ? onPostgres(ctx) : onSqlite(ctx)
  return {
    store,
    tableBytes: perTable,
    metrics: metricsBudget(monitoring.metricsJobs),
    tiers: STORAGE_TIERS,
    readDisk,
    dataDir: ctx.config.dataDir,
    settings: ctx.config.storage,
    clock: ctx.clock,
    logger: ctx.logger,
    state,
    pause: ctx.bulkPause,
    perHub: ctx.pg !== null,
  }
}

function onSqlite(ctx: AppContext): { store: StorageStore; perTable: () => Promise<Map<string, number>> } {
  const db = createStorageStore(ctx.db.sqlite)
  // the newest samples' records and the sealed blocks' files count with the database (metrics.usage.ts)
  const files = metricFileBytes(ctx.db.sqlite)
  const measured = tableBytes(ctx.db.sqlite.filename, sqliteStorage(ctx.db.sqlite).bytesPerTable, ctx.logger)
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)
  const withFiles = (bytes: () => Promise<number>) => async () => (await bytes()) + sum(files())
  return {
    store: { ...db, usedBytes: withFiles(db.usedBytes), fileBytes: withFiles(db.fileBytes) },
    perTable: async () => new Map([...(await measured()), ...files()]),
  }
}

function onPostgres(ctx: AppContext): { store: StorageStore; perTable: () => Promise<Map<string, number>> } {
  const refusal = postgresBudgetRefusal(ctx.config.storage)
  if (refusal) throw new ConfigError(refusal)
  const store = createStorageStorePg(ctx.pg!)
  return { store, perTable: () => store.bytesPerTable() }
}
