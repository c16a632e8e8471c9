import { Elysia, t } from 'elysia'
import { authGuards } from '../../http/auth'
import { jsonInput, queryInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import { heartbeat } from './checks.heartbeat'
import { agentChecks } from './checks.agent'
import {
  AgentChecksQuery,
  AgentChecksResponse,
  CheckCreate,
  CheckDetail,
  CheckListItem,
  CheckParams,
  CheckPatch,
  CheckResponse,
  CheckTest,
  HeartbeatAck,
  IncidentsPage,
  IncidentsQuery,
  ProbeResult,
  ResultsPage,
  ResultsQuery,
  SeriesQuery,
  SeriesResponse,
  TokenParams,
} from './checks.model'
import { createCheck, deleteCheck, rotateToken, testCheck, updateCheck, type ChecksDeps } from './checks.service'
import { getCheckDetail, incidentsPage, listChecks, resultsPage, series } from './checks.views'
import type { RecordDeps } from './checks.record'

const tags = ['checks']
const managers = { roles: ['owner' as const, 'admin' as const] }
const create = jsonInput(CheckCreate)
const patch = jsonInput(CheckPatch)
const test = jsonInput(CheckTest)
const results = queryInput(ResultsQuery)
const seriesQuery = queryInput(SeriesQuery)
const incidents = queryInput(IncidentsQuery)
const agentQuery = queryInput(AgentChecksQuery)

export const TEST_NOW_PER_MINUTE = 10

/** Service checks: any member reads; owners and admins change them and test definitions. */
export function checksRoutes(deps: ChecksDeps & RecordDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/checks' })
    .use(authGuards(auth))
    .get('', ({ user }) => listChecks(deps, user.clientId), {
      user: true,
      response: { 200: t.Array(CheckListItem) },
      detail: {
        tags,
        summary: "The account's checks with uptime over 24 h and a latency sparkline, those that need attention first (down, degraded, pending, up, paused)",
      },
    })
    .post(
      '',
      async ({ user, body, set }) => {
        const check = await createCheck(deps, user.clientId, create.read(body))
        set.status = 201
        return check
      },
      {
        user: managers,
        response: { 201: CheckResponse },
        detail: {
          ...routeErrors('unsafe_url', 'invalid_parameter', 'conflict'),
          ...create.doc,
          tags,
          summary: "Create a check (a heartbeat's token is shown once, in this answer)",
          description: `Kinds: http, tcp, ping, dns, tls, heartbeat; each reads its own settings (docs/checks.md). Checks the hub runs follow the account's outbound policy (unsafe_url when refused). An account may have at most ${deps.maxChecks} checks; beyond it 409 conflict.`,
        },
      },
    )
    .post('/test', ({ user, body }) => testCheck(deps, user.clientId, test.read(body)), {
      user: managers,
      response: { 200: ProbeResult },
      detail: {
        ...routeErrors('unsafe_url', 'bad_request'),
        ...test.doc,
        tags,
        summary: 'Test now: run a definition once from the hub and answer the raw result (nothing is stored)',
        description: `At most ${TEST_NOW_PER_MINUTE} tests per minute per account; beyond it 429 rate_limited with Retry-After. The account's outbound policy applies.`,
      },
    })
    .get('/:check_id', ({ user, params }) => getCheckDetail(deps, user.clientId, params.check_id), {
      user: true,
      params: CheckParams,
      response: { 200: CheckDetail },
      detail: { ...routeErrors('not_found'), tags, summary: 'One check with uptime over 24 h, 7 d, 30 d and 365 d and response-time percentiles' },
    })
    .patch('/:check_id', ({ user, params, body }) => updateCheck(deps, user.clientId, params.check_id, patch.read(body)), {
      user: managers,
      params: CheckParams,
      response: { 200: CheckResponse },
      detail: {
        ...routeErrors('not_found', 'unsafe_url', 'invalid_parameter'),
        ...patch.doc,
        tags,
        summary: 'Change a check (its kind stays); resuming a paused check starts it afresh in pending',
      },
    })
    .delete(
      '/:check_id',
      async ({ user, params, set }) => {
        await deleteCheck(deps, user.clientId, params.check_id)
        set.status = 204
      },
      { user: managers, params: CheckParams, detail: { ...routeErrors('not_found'), tags, summary: 'Delete a check with its results and incidents' } },
    )
    .post('/:check_id/rotate-token', ({ user, params }) => rotateToken(deps, user.clientId, params.check_id), {
      user: managers,
      params: CheckParams,
      response: { 200: CheckResponse },
      detail: { ...routeErrors('not_found', 'conflict'), tags, summary: "A heartbeat's new token (shown once); the old one stops working at once" },
    })
    .get('/:check_id/results', ({ user, params, request }) => resultsPage(deps, user.clientId, params.check_id, results.read(request)), {
      user: true,
      params: CheckParams,
      response: { 200: ResultsPage },
      detail: {
        ...routeErrors('not_found'),
        ...results.doc,
        tags,
        summary: 'Raw attempts of the last 48 hours, newest first, each with the place that ran it',
      },
    })
    .get('/:check_id/series', ({ user, params, request }) => series(deps, user.clientId, params.check_id, seriesQuery.read(request).range), {
      user: true,
      params: CheckParams,
      response: { 200: SeriesResponse },
      detail: {
        ...routeErrors('not_found'),
        ...seriesQuery.doc,
        tags,
        summary: 'Response times and uptime over a range, at a resolution fitted to it (1 min for 1h … 1 day for 365d)',
      },
    })
    .get(
      '/:check_id/incidents',
      ({ user, params, request }) => {
        const q = incidents.read(request)
        return incidentsPage(deps, user.clientId, params.check_id, q.limit, q.offset)
      },
      {
        user: true,
        params: CheckParams,
        response: { 200: IncidentsPage },
        detail: { ...routeErrors('not_found'), ...incidents.doc, tags, summary: 'Down periods, newest first, each with the error that began it' },
      },
    )
}

const hbTags = ['heartbeats']
const HB_DESCRIPTION =
  'Anonymous: the token in the path is the credential (keep it secret). Send no body, or a JSON one (ignored). Rate-limited like every anonymous path. An unknown token is 404.'

/** Heartbeat URLs a cron job or backup script calls: /hb/{token} on success, /hb/{token}/fail on failure. */
export function heartbeatRoutes(deps: ChecksDeps & RecordDeps) {
  const ok = ({ params }: { params: { token: string } }) => heartbeat(deps, params.token, true)
  const fail = ({ params }: { params: { token: string } }) => heartbeat(deps, params.token, false)
  const doc = (summary: string) => ({
    params: TokenParams,
    response: { 200: HeartbeatAck },
    detail: { ...routeErrors('not_found'), tags: hbTags, summary, description: HB_DESCRIPTION },
  })
  return new Elysia({ prefix: '/hb' })
    .get('/:token', ok, doc('Report that the job ran'))
    .post('/:token', ok, doc('Report that the job ran'))
    .get('/:token/fail', fail, doc('Report that the job failed (the check is down at once)'))
    .post('/:token/fail', fail, doc('Report that the job failed (the check is down at once)'))
}

/**
 * The checks an agent runs, polled by the collector (at most once a minute) with its key: 304
 * while nothing changed since the etag it sends in If-None-Match.
 */
export function agentChecksRoutes(deps: ChecksDeps & RecordDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/agent' }).use(authGuards(auth)).get(
    '/checks',
    async ({ key, request }) => {
      const list = await agentChecks(deps, key, agentQuery.read(request).device_id)
      if (request.headers.get('if-none-match') === list.etag) return new Response(null, { status: 304, headers: { etag: list.etag } })
      return new Response(JSON.stringify(list), { headers: { 'content-type': 'application/json', etag: list.etag } })
    },
    {
      key: 'metrics:write',
      response: { 200: AgentChecksResponse },
      detail: {
        ...routeErrors('not_found', 'device_mismatch', 'device_required'),
        ...agentQuery.doc,
        tags,
        summary: "The definitions of the checks this device's agent runs (304 with If-None-Match while unchanged)",
        description:
          "The agent runs each on its interval and sends the results in its batches as check_results (POST /v1/metrics/batch). The settings are whole here, secrets included (credential headers, body, a URL's credential parameters, which are encrypted at rest and masked everywhere else): the agent that runs the probe needs them, and gets them only over its own authenticated request. The batch is answered once its results are stored; a failure to store them answers the batch's error, so the agent keeps it queued and replays it.",
      },
    },
  )
}
