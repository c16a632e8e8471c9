import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { guards, JWT_AUTH, KEY_AUTH } from '../../http/guards'
import { metricsJobs } from './metrics.jobs'
import {
  BatchCreated,
  BatchMetricIn,
  DeviceParams,
  HardwareMetricIn,
  HardwarePage,
  HardwareRecord,
  HistoryQuery,
  MetricCreated,
  NetworkMetricIn,
  NetworkPage,
  NetworkRecord,
  SummaryQuery,
} from './metrics.model'
import { historyJson, ingestBatch, ingestOne, latest, summarizeDevice } from './metrics.service'
import { MetricsSummary } from './metrics.summary.model'
import { bodyValidator, jsonBody } from './metrics.validate'

const tags = ['metrics']
const checkHardwareMetricIn = bodyValidator(HardwareMetricIn)
const checkNetworkMetricIn = bodyValidator(NetworkMetricIn)
const checkBatchMetricIn = bodyValidator(BatchMetricIn)
const WRITE = 'metrics:write' as const
/** A body already serialised as the declared schema (see historyJson) */
const json = (text: string) => new Response(text, { headers: { 'content-type': 'application/json' } })
/**
 * Ingest answers are built by the service in the declared shape; sending them as a Response
 * skips Elysia's per-request response check and encode (~5% of an ingest request's CPU).
 */
const created = (body: unknown) => new Response(JSON.stringify(body), { status: 201, headers: { 'content-type': 'application/json' } })

export function metricsRoutes(ctx: AppContext) {
  ctx.jobs.push(...metricsJobs(ctx))
  // checkpoints run from the metrics.checkpoint job instead of inside a COMMIT (see metrics.jobs.ts)
  ctx.db.sqlite.run('PRAGMA wal_autocheckpoint = 0')
  // after a burst, the WAL file is cut back to this size once a checkpoint lets it restart
  ctx.db.sqlite.run('PRAGMA journal_size_limit = 67108864')
  const deviceHeader = (h: Record<string, string | undefined>) => h['x-device-id'] || null
  return new Elysia({ prefix: '/v1/metrics' })
    .use(guards(ctx))
    .post(
      '/hardware',
      async ({ key, body, headers }) => {
        return created(await ingestOne(ctx, key, 'hardware', checkHardwareMetricIn(body), deviceHeader(headers)))
      },
      { key: WRITE, response: { 201: MetricCreated }, detail: { tags, security: KEY_AUTH, requestBody: jsonBody(HardwareMetricIn), summary: 'Store a hardware sample' } },
    )
    .post(
      '/network',
      async ({ key, body, headers }) => {
        return created(await ingestOne(ctx, key, 'network', checkNetworkMetricIn(body), deviceHeader(headers)))
      },
      { key: WRITE, response: { 201: MetricCreated }, detail: { tags, security: KEY_AUTH, requestBody: jsonBody(NetworkMetricIn), summary: 'Store a network sample' } },
    )
    .post(
      '/batch',
      async ({ key, body, headers }) => {
        return created(await ingestBatch(ctx, key, checkBatchMetricIn(body), deviceHeader(headers)))
      },
      { key: WRITE, response: { 201: BatchCreated }, detail: { tags, security: KEY_AUTH, requestBody: jsonBody(BatchMetricIn), summary: 'Store hardware and network samples together (atomic)' } },
    )
    .get('/hardware/:device_id', ({ user, params, query }) => json(historyJson(ctx, user.clientId, 'hardware', params.device_id, query)), {
      user: true,
      params: DeviceParams,
      query: HistoryQuery,
      response: { 200: HardwarePage },
      detail: { tags, security: JWT_AUTH, summary: 'Hardware samples, newest first' },
    })
    .get('/network/:device_id', ({ user, params, query }) => json(historyJson(ctx, user.clientId, 'network', params.device_id, query)), {
      user: true,
      params: DeviceParams,
      query: HistoryQuery,
      response: { 200: NetworkPage },
      detail: { tags, security: JWT_AUTH, summary: 'Network samples, newest first' },
    })
    .get('/hardware/:device_id/latest', ({ user, params }) => latest(ctx, user.clientId, 'hardware', params.device_id), {
      user: true,
      params: DeviceParams,
      response: { 200: HardwareRecord },
      detail: { tags, security: JWT_AUTH, summary: 'The newest hardware sample' },
    })
    .get('/network/:device_id/latest', ({ user, params }) => latest(ctx, user.clientId, 'network', params.device_id), {
      user: true,
      params: DeviceParams,
      response: { 200: NetworkRecord },
      detail: { tags, security: JWT_AUTH, summary: 'The newest network sample' },
    })
    .get('/summary/:device_id', ({ user, params, query }) => summarizeDevice(ctx, user.clientId, params.device_id, query.hours), {
      user: true,
      params: DeviceParams,
      query: SummaryQuery,
      response: { 200: MetricsSummary },
      detail: { tags, security: JWT_AUTH, summary: 'Avg/min/max/p95/last per numeric field over the last N hours' },
    })
}
