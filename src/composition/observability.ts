import type { AppContext } from '../context'
import { walFileBytes } from '../db/wal'
import { processFds } from '../lib/process-fds'
import type { Job } from '../jobs/scheduler'
import { deviceLabels } from '../modules/devices/devices.service'
import { latestValues } from '../modules/metrics/metrics.service'
import { storageGauges, type StorageDeps } from '../modules/storage/storage.service'
import { createRegistry, type Registry } from '../modules/observability/observability.registry'
import type { ObservabilityDeps } from '../modules/observability/observability.service'
import type { FleetModules } from './fleet'
import type { Hooks } from './hooks'
import type { MonitoringModules } from './monitoring'
import type { ContainerModules } from './containers'
import { scrapeContainers } from '../modules/containers/containers.service'

/**
 * GET /metrics, after every group: its counters are fed by the ingest path (the samplesIngested
 * hook, which the metrics deps call), the request pipeline (createApp hands it the registry) and the
 * job list (timedJobs); its fleet part reads devices and their newest samples through their services.
 */
export function wireObservability(
  ctx: AppContext,
  fleet: FleetModules,
  monitoring: MonitoringModules,
  hooks: Hooks,
  containers: ContainerModules,
  storage: StorageDeps,
): ObservabilityDeps {
  const registry = createRegistry()
  hooks.samplesIngested.listen((kind, samples) => registry.ingested(kind, samples))
  return {
    registry,
    clock: ctx.clock,
    startedAt: ctx.clock.now(),
    fds: processFds,
    storage: {
      // SQLite's file with the metric files beside it, or PostgreSQL's size as the server counts it
      databaseBytes: () => storage.store.fileBytes(),
      // PostgreSQL's write-ahead log is the server's own, not the hub's
      walBytes: () => (ctx.pg ? null : walFileBytes(ctx.db.sqlite.filename)),
      gauges: () => storageGauges(storage),
    },
    devices: (clientId) => deviceLabels(fleet.devices, clientId),
    latest: (kind, seqs) => latestValues(monitoring.metrics, kind, seqs),
    containers: (clientId, since) => scrapeContainers(containers.containers, clientId, since),
  }
}

/** Every job run counted and timed for /metrics, whatever the scheduler or a trigger starts. */
export function timedJobs(jobs: Job[], registry: Registry, clock: AppContext['clock']): Job[] {
  return jobs.map((job) => ({
    ...job,
    async run() {
      const started = performance.now()
      let ok = false
      try {
        await job.run()
        ok = true
      } finally {
        registry.job(job.name, (performance.now() - started) / 1000, ok, clock.now())
      }
    },
  }))
}
