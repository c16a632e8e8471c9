import type { AppContext } from '../context'
import { hubRuns, hubRunsFile } from '../modules/ai/ai.hub-runs'
import { hubRunsPg } from '../modules/ai/ai.hub-runs.pg'
import type { MetricsSource } from '../modules/ai/ai.metrics-source'
import { TREND_HOURS } from '../modules/ai/ai.rules'
import type { AiDeps } from '../modules/ai/ai.service'
import { createAiStore } from '../modules/ai/ai.store'
import { createAiStorePg } from '../modules/ai/ai.store.pg'
import { clientsWithDevices, deviceIdsOf, deviceRef, deviceSeqs, findDevice, markDeviceSeen, resolveDevice } from '../modules/devices/devices.service'
import { resolveKnownDevice } from '../modules/devices/devices.service'
import type { MetricsJobDeps } from '../modules/metrics/metrics.jobs'
import { createRollupStore, type RollupPort } from '../modules/metrics/metrics.rollup.store'
import { summaryOf, type MetricsDeps } from '../modules/metrics/metrics.service'
import { fieldSeriesReader } from '../modules/metrics/metrics.field-series'
import { createMetricsStore, type MetricsStore } from '../modules/metrics/metrics.store'
import { createSeriesStore, type SeriesStore } from '../modules/metrics/metrics.series.store'
import { retentionMs } from '../modules/metrics/metrics.jobs'
import { createMetricWriter, type MetricWriter } from '../modules/metrics/metrics.writer'
import { createMetricWriterPg } from '../modules/metrics/metrics.writer.pg'
import { createBlockStore, type BlockStore } from '../modules/metrics/metrics.block.store'
import { sqliteOnlyStore } from '../db/pg/no-sqlite'
import { createSealer, type Sealer } from '../modules/metrics/metrics.seal'
import { sqliteMetricsReads, type MetricsReads } from '../modules/metrics/metrics.reads'
import { createTierRowsCache } from '../modules/metrics/metrics.summary.cache'
import { createMetricsStorePg } from '../modules/metrics/metrics.store.pg'
import { createRollupStorePg } from '../modules/metrics/metrics.rollup.store.pg'
import { createRecordCodec } from '../modules/metrics/metrics.records.pg'
import { onEngine } from './engine'
import { sqliteSeriesReads, type SeriesReads } from '../modules/metrics/metrics.series.reads'
import { createSeriesStorePg } from '../modules/metrics/metrics.series.store.pg'
import { sqliteFleetReads, type FleetReads } from '../modules/metrics/metrics.fleet'
import { createFleetReadsPg, followSampleTimes, recentTimes, type RecentTimes } from '../modules/metrics/metrics.fleet.store.pg'
import { storeFindings, type RecommendationsDeps } from '../modules/recommendations/recommendations.service'
import { createRecommendationsStore } from '../modules/recommendations/recommendations.store'
import { createRecommendationsStorePg } from '../modules/recommendations/recommendations.store.pg'
import type { FleetModules } from './fleet'
import type { Hooks } from './hooks'
import type { IdentityModules } from './identity'
import type { Filled } from './ports'

/** The metric stores of this hub's engine (the sealer's SQLite writer: null on PostgreSQL, which keeps no blocks). */
interface MetricsEngine {
  writer: MetricsDeps['writer']
  late: MetricsJobDeps['writer']
  reads: MetricsReads
  seriesReads: SeriesReads
  rollups: RollupPort
  fleet: FleetReads
  /** PostgreSQL's memory of each device's newest sample times (the intervals); null on SQLite, which reads them */
  recent: RecentTimes | null
  sqliteWriter: MetricWriter | null
}

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
  // (on PostgreSQL one per hub, each its own group commits; the records' reference texts shared with the reads)
  const codec = createRecordCodec()
  const engine = onEngine<MetricsEngine>(
    ctx,
    (db) => {
      const sqliteWriter = createMetricWriter(db, ctx.clock, { markSeen: (seq, at) => markDeviceSeen(devices, seq, at) })
      return {
        writer: sqliteWriter,
        late: sqliteWriter,
        reads: sqliteMetricsReads(createMetricsStore(db), createTierRowsCache(db)),
        seriesReads: sqliteSeriesReads(createSeriesStore(db)),
        rollups: createRollupStore(db),
        fleet: sqliteFleetReads(createSeriesStore(db), createMetricsStore(db)),
        recent: null,
        sqliteWriter,
      }
    },
    (pg) => {
      const pgWriter = createMetricWriterPg(pg, ctx.clock, { rawRetentionMs: ctx.config.metricsRetention.raw * 1000, codec })
      const recent = recentTimes()
      return {
        writer: pgWriter,
        late: pgWriter,
        reads: createMetricsStorePg(pg, codec),
        seriesReads: createSeriesStorePg(pg, codec),
        rollups: createRollupStorePg(pg),
        fleet: createFleetReadsPg(pg, recent),
        recent,
        sqliteWriter: null,
      }
    },
  )
  const writer = engine.writer
  // who hears of each newly stored sample (the live stream, alert rules) and counts them (/metrics) listens on the hooks
  const metrics: Filled<MetricsDeps, 'stored' | 'ingested' | 'extras'> = {
    stored: hooks.sampleStored.call,
    extras: hooks.batchExtras.call,
    ingested: hooks.samplesIngested.call,
    checkResults: hooks.checkResults.call,
    reads: engine.reads,
    seriesReads: engine.seriesReads,
    // SQLite's synchronous reads (a summary step by step, a field's hourly series): on PostgreSQL
    // every caller reads through `reads`/`seriesReads` instead
    store: onEngine(ctx, createMetricsStore, () => sqliteOnlyStore<MetricsStore>('the metrics store')),
    series: onEngine(ctx, createSeriesStore, () => sqliteOnlyStore<SeriesStore>('the metrics series store')),
    fleet: engine.fleet,
    retentionMs: retentionMs(ctx.config.metricsRetention),
    writer,
    clock: ctx.clock,
    devices: {
      resolve: (key, named) => resolveDevice(devices, key, named),
      ref: (clientId, deviceId) => deviceRef(devices, clientId, deviceId),
      seqs: () => deviceSeqs(devices),
    },
  }
  // a PostgreSQL hub's memory of sample times (the devices' intervals) follows every sample stored, here or on another hub
  if (engine.recent && ctx.pg) {
    const recent = engine.recent
    followSampleTimes(recent, { stored: hooks.sampleStored.listen, peers: (l) => ctx.events.subscribePeers(l), ref: metrics.devices.ref })
    recent
      .load(ctx.pg)
      .catch((err) =>
        ctx.logger.warn("metrics: the devices' recent sample times were not loaded; their intervals build up from new samples", { error: String(err) }),
      )
  }
  const blocks = onEngine(ctx, createBlockStore, () => sqliteOnlyStore<BlockStore>('the metric blocks store'))
  const metricsJobs: MetricsJobDeps = {
    rollups: engine.rollups,
    // PostgreSQL keeps no blocks: its records stay in their day partitions
    blocks: engine.sqliteWriter ? blocks : undefined,
    devices: metrics.devices,
    writer: engine.late,
    clock: ctx.clock,
    retention: ctx.config.metricsRetention,
    logger: ctx.logger,
    pause: ctx.bulkPause,
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
    metrics: overrides.metricsSource ?? aiMetricsSource(metrics),
  }

  // samples an hour old move into their compact blocks (metrics.seal.ts)
  const sealer: Sealer = engine.sqliteWriter
    ? createSealer({ blocks, devices: metrics.devices, writer: engine.sqliteWriter, clock: ctx.clock, logger: ctx.logger, pause: ctx.bulkPause })
    : { run: async () => ({ blocks: 0, rows: 0 }), behind: () => 0 }
  return { metrics, metricsJobs, sealer, recommendations, ai }
}

/** The AI's reads of metrics on this hub's engine: a device's summary and its fields' hourly series, read together. */
export function aiMetricsSource(metrics: MetricsDeps): MetricsSource {
  return {
    async read(clientId, deviceId, hours) {
      const [summary, series] = await Promise.all([
        summaryOf(metrics, clientId, deviceId, hours),
        fieldSeriesReader(metrics, clientId, deviceId, Math.max(hours, TREND_HOURS)),
      ])
      return { summary, series }
    },
  }
}

export type MonitoringModules = ReturnType<typeof wireMonitoring>
