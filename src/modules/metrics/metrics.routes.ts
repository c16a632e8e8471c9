import { Elysia } from 'elysia'
import type { TSchema } from '@sinclair/typebox'
import type { DirectKeyRoute } from '../../http/direct-routes'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { routeErrors } from '../../http/openapi-errors'
import { bodyReader, queryInput } from '../../http/input'
import {
  BatchCreated,
  BatchMetricIn,
  BulkCreated,
  BulkMetricIn,
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
import { historyAnswer, ingestBatch, ingestOne, latestAnswer, summaryOf, type MetricsDeps } from './metrics.service'
import { MetricsSummary } from './metrics.summary.model'
import { ingestBulk } from './metrics.bulk'
import { SeriesQuery, SeriesResponse } from './metrics.series.model'
import { deviceSeries } from './metrics.series'

const tags = ['metrics']
const checkHardwareMetricIn = bodyReader(HardwareMetricIn)
const checkNetworkMetricIn = bodyReader(NetworkMetricIn)
const checkBatchMetricIn = bodyReader(BatchMetricIn)
const checkBulkMetricIn = bodyReader(BulkMetricIn)
const WRITE = 'metrics:write' as const
const historyQuery = queryInput(HistoryQuery)
const summaryQuery = queryInput(SummaryQuery)
const seriesQuery = queryInput(SeriesQuery)
/** A body already serialised as the declared schema (see historyAnswer); the Response copies it when made */
const json = (body: Uint8Array) => new Response(body, { headers: { 'content-type': 'application/json' } })
const jsonText = (body: string) => new Response(body, { headers: { 'content-type': 'application/json' } })

/**
 * The collector's ingest endpoints, served on the hot path (http/direct-routes.ts). Bodies are
 * checked by compiled TypeBox validators; answers are built by the service in the declared shape.
 */
export function metricsIngestRoutes(deps: MetricsDeps): DirectKeyRoute[] {
  const deviceHeader = (request: Request) => request.headers.get('x-device-id') || null
  const route = (path: string, summary: string, body: TSchema, response: TSchema, handle: DirectKeyRoute['handle']): DirectKeyRoute => ({
    method: 'POST',
    path: `/v1/metrics${path}`,
    scope: WRITE,
    status: 201,
    handle,
    doc: { tags, summary, body, response, errors: ['not_found', 'device_mismatch', 'device_required', 'device_limit_reached', 'invalid_parameter'] },
  })
  return [
    route('/hardware', 'Store a hardware sample', HardwareMetricIn, MetricCreated, ({ key, body, request }) =>
      ingestOne(deps, key, 'hardware', checkHardwareMetricIn(body), deviceHeader(request)),
    ),
    route('/network', 'Store a network sample', NetworkMetricIn, MetricCreated, ({ key, body, request }) =>
      ingestOne(deps, key, 'network', checkNetworkMetricIn(body), deviceHeader(request)),
    ),
    route('/batch', 'Store hardware and network samples together (atomic)', BatchMetricIn, BatchCreated, ({ key, body, request }) =>
      ingestBatch(deps, key, checkBatchMetricIn(body), deviceHeader(request)),
    ),
    route(
      '/bulk',
      'Store many batches of one device at once (a collector replaying its queue): up to 500 items, each with its recorded_at, in one transaction; each item answers stored, duplicate or rejected',
      BulkMetricIn,
      BulkCreated,
      ({ key, body, request }) => ingestBulk(deps, key, checkBulkMetricIn(body), deviceHeader(request)),
    ),
  ]
}

/** The portal's reads: history, latest, summary, chart series. */
export function metricsRoutes(deps: MetricsDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/metrics' })
    .use(authGuards(auth))
    .get(
      '/hardware/:device_id',
      ({ user, params, request }) => historyAnswer(deps, user.clientId, 'hardware', params.device_id, historyQuery.read(request), json),
      {
        user: true,
        params: DeviceParams,
        response: { 200: HardwarePage },
        detail: { ...routeErrors('invalid_parameter'), ...historyQuery.doc, tags, summary: 'Hardware samples, newest first' },
      },
    )
    .get(
      '/network/:device_id',
      ({ user, params, request }) => historyAnswer(deps, user.clientId, 'network', params.device_id, historyQuery.read(request), json),
      {
        user: true,
        params: DeviceParams,
        response: { 200: NetworkPage },
        detail: { ...routeErrors('invalid_parameter'), ...historyQuery.doc, tags, summary: 'Network samples, newest first' },
      },
    )
    .get('/hardware/:device_id/latest', ({ user, params }) => latestAnswer(deps, user.clientId, 'hardware', params.device_id, json), {
      user: true,
      params: DeviceParams,
      response: { 200: HardwareRecord },
      detail: { ...routeErrors('no_metrics'), tags, summary: 'The newest hardware sample' },
    })
    .get('/network/:device_id/latest', ({ user, params }) => latestAnswer(deps, user.clientId, 'network', params.device_id, json), {
      user: true,
      params: DeviceParams,
      response: { 200: NetworkRecord },
      detail: { ...routeErrors('no_metrics'), tags, summary: 'The newest network sample' },
    })
    .get('/summary/:device_id', ({ user, params, request }) => summaryOf(deps, user.clientId, params.device_id, summaryQuery.read(request).hours), {
      user: true,
      params: DeviceParams,
      response: { 200: MetricsSummary },
      detail: { ...summaryQuery.doc, tags, summary: 'Avg/min/max/p95/last per numeric field over the last N hours' },
    })
    .get(
      '/series/:device_id',
      // serialised here, not checked again against the schema: up to 5,000 points per series
      async ({ user, params, request }) => jsonText(JSON.stringify(await deviceSeries(deps, user.clientId, params.device_id, seriesQuery.read(request)))),
      {
        user: true,
        params: DeviceParams,
        response: { 200: SeriesResponse },
        detail: {
          ...seriesQuery.doc,
          tags,
          summary:
            'Chart series of one device over a range, as columns (t in unix seconds; values, min, max per series): hot fields from the rollup tiers, nested families from raw samples',
        },
      },
    )
}
