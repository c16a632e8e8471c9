import type { AppContext } from '../context'
import { hubRuns, hubRunsFile } from '../modules/ai/ai.hub-runs'
import { hubRunsPg } from '../modules/ai/ai.hub-runs.pg'
import type { MetricsSource } from '../modules/ai/ai.metrics-source'
import type { AiDeps } from '../modules/ai/ai.service'
import { createAiStore } from '../modules/ai/ai.store'
import { createAiStorePg } from '../modules/ai/ai.store.pg'
import { clientsWithDevices, deviceIdsOf, deviceRef, deviceSeqs, findDevice, markDeviceSeen, resolveDevice } from '../modules/devices/devices.service'
import { resolveKnownDevice } from '../modules/devices/devices.service'
import type { MetricsJobDeps } from '../modules/metrics/metrics.jobs'
import { createRollupStore } from '../modules/metrics/metrics.rollup.store'
import { fieldSeries, summarizeDevice, type MetricsDeps } from '../modules/metrics/metrics.service'
import { createMetricsStore } from '../modules/metrics/metrics.store'
import { createSeriesStore } from '../modules/metrics/metrics.series.store'
import { retentionMs } from '../modules/metrics/metrics.jobs'
import { createMetricWriter } from '../modules/metrics/metrics.writer'
import { createBlockStore } from '../modules/metrics/metrics.block.store'
import { createSealer } from '../modules/metrics/metrics.seal'
import { storeFindings, type RecommendationsDeps } from '../modules/recommendations/recommendations.service'
import { createRecommendationsStore } from '../modules/recommendations/recommendations.store'
import { createRecommendationsStorePg } from '../modules/recommendations/recommendations.store.pg'
import { onEngine } from './engine'
import type { FleetModules } from './fleet'
import type { Hooks } from './hooks'
import type { IdentityModules } from './identity'
import type { Filled } from './ports'

/** What a test may swap in this group. */
export interface MonitoringOverrides {
  /** what the recommendation engine reads; default: the metrics module */
  metricsSource?: MetricsSource
}

/** Metrics, recommendations and the AI engine: what the devices report and what it means. */
export function wireMonitoring(ctx: AppContext, identity: IdentityModules, fleet: FleetModules, hooks: Hooks, overrides: MonitoringOverrides = {}) {
  const sqlite = ctx.db.sqlite
  const devices = fleet.devices

  // the only writer of the metric tables: ingest, the rollup job and the checkpointer share its queue
  const writer = createMetricWriter(sqlite, ctx.clock, { markSeen: (seq, at) => markDeviceSeen(devices, seq, at) })
  // who hears of each newly stored sample (the live stream, alert rules) and counts them (/metrics) listens on the hooks
  const metrics: Filled<MetricsDeps, 'stored' | 'ingested' | 'extras'> = {
    stored: hooks.sampleStored.call,
    extras: hooks.batchExtras.call,
    ingested: hooks.samplesIngested.call,
    checkResults: hooks.checkResults.call,
    store: createMetricsStore(sqlite),
    series: createSeriesStore(sqlite),
    retentionMs: retentionMs(ctx.config.metricsRetention),
    writer,
    clock: ctx.clock,
    devices: {
      resolve: (key, named) => resolveDevice(devices, key, named),
      ref: (clientId, deviceId) => deviceRef(devices, clientId, deviceId),
      seqs: () => deviceSeqs(devices),
    },
  }
  const blocks = createBlockStore(sqlite)
  const metricsJobs: MetricsJobDeps = {
    rollups: createRollupStore(sqlite),
    blocks,
    devices: metrics.devices,
    writer,
    clock: ctx.clock,
    retention: ctx.config.metricsRetention,
    logger: ctx.logger,
  }

  const recommendations: Filled<RecommendationsDeps, 'created'> = {
    store: onEngine(ctx, createRecommendationsStore, createRecommendationsStorePg),
    clock: ctx.clock,
    devices: {
      exists: (clientId, deviceId) => findDevice(devices, clientId, deviceId) !== null,
      resolve: (key, named) => resolveKnownDevice(devices, key, named),
    },
    // where recommendation.created is born: the bus carries it to webhooks and the live stream
    created: (clientId, recommendation) => void ctx.events.publish(clientId, 'recommendation.created', { recommendation }),
  }

  const ai: AiDeps = {
    store: onEngine(ctx, createAiStore, createAiStorePg),
    clock: ctx.clock,
    defaults: ctx.config.ai,
    secretKey: ctx.secretKey,
    outbound: ctx.outbound,
    allowPrivate: ctx.config.outbound.allowPrivate,
    allowLocal: ctx.config.outbound.allowLocal,
    isOperatorClient: (clientId) => identity.directory.isOperatorClient(clientId),
    logger: ctx.logger,
    timeoutMs: ctx.config.ai.timeoutMs,
    devices: {
      find: (clientId, deviceId) => findDevice(devices, clientId, deviceId),
      ids: (clientId) => deviceIdsOf(devices, clientId),
      clients: () => clientsWithDevices(devices),
    },
    findings: { store: (clientId, findings) => storeFindings(recommendations, clientId, findings) },
    hubRuns: ctx.pg ? hubRunsPg({ sql: ctx.pg, clock: ctx.clock, logger: ctx.logger }) : hubRuns({ clock: ctx.clock, storage: hubRunsFile(sqlite.filename) }),
    metrics: overrides.metricsSource ?? {
      summary: (clientId, deviceId, hours) => summarizeDevice(metrics, clientId, deviceId, hours),
      series: (clientId, deviceId, field, hours) => fieldSeries(metrics, clientId, deviceId, field, hours),
    },
  }

  // samples an hour old move into their compact blocks (metrics.seal.ts)
  const sealer = createSealer({ blocks, devices: metrics.devices, writer, clock: ctx.clock, logger: ctx.logger })
  return { metrics, metricsJobs, sealer, recommendations, ai }
}

export type MonitoringModules = ReturnType<typeof wireMonitoring>
