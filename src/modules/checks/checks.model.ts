import { Type } from '@sinclair/typebox'
import { t, type Static } from 'elysia'
import { MAX_CHECK_RESULTS } from './checks.wire'

export const CHECK_KINDS = ['http', 'tcp', 'ping', 'dns', 'tls', 'heartbeat'] as const
export type CheckKind = (typeof CHECK_KINDS)[number]
export const CheckKindSchema = t.Union([t.Literal('http'), t.Literal('tcp'), t.Literal('ping'), t.Literal('dns'), t.Literal('tls'), t.Literal('heartbeat')])

const Host = t.String({ minLength: 1, maxLength: 253, description: 'a host name or an IP address' })
const Port = Type.Integer({ minimum: 1, maximum: 65535 })

/**
 * Every kind's settings in one closed object: each kind reads its own fields (checks.settings.ts
 * says which are required for which kind) and the rest are dropped when saved. One object keeps
 * validation answers precise (`body.settings.url`) where a union of shapes would only say "no
 * member matched".
 */
export const CheckSettings = t.Object(
  {
    url: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 2000,
        description:
          'http: the address called (http or https); a query parameter that carries a credential (named with token, key, secret, passw, sig, auth or credential) is encrypted at rest and answered as •••• and its last 4 characters; sending the URL back as answered keeps the stored one',
      }),
    ),
    method: t.Optional(
      t.Union([t.Literal('GET'), t.Literal('HEAD'), t.Literal('POST'), t.Literal('PUT'), t.Literal('PATCH'), t.Literal('DELETE'), t.Literal('OPTIONS')], {
        description: 'http: default GET',
      }),
    ),
    headers: t.Optional(
      t.Record(t.String({ minLength: 1, maxLength: 100, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }), t.String({ maxLength: 1000 }), {
        maxProperties: 20,
        additionalProperties: false,
        description:
          'http: request headers (at most 20); a credential header (authorization, cookie, a name with token, secret, key, password or credential) is encrypted at rest and answered as •••• and its last 4 characters, and sending that back keeps the stored value',
      }),
    ),
    body: t.Optional(
      t.String({
        maxLength: 10_000,
        description: 'http: request body; encrypted at rest and answered as •••• and its last 4 characters, and sending that back keeps the stored body',
      }),
    ),
    accepted_status: t.Optional(
      t.Array(t.String({ pattern: '^[1-5][0-9]{2}(-[1-5][0-9]{2})?$', maxLength: 7 }), {
        minItems: 1,
        maxItems: 20,
        description: 'http: status codes that count as up, single ("204") or ranges ("200-299"); default ["200-299"]',
      }),
    ),
    keyword: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'http: text the answer must contain (or must not, with keyword_absent)' })),
    keyword_absent: t.Optional(t.Boolean({ description: 'http: true: the keyword must be absent' })),
    json_path: t.Optional(
      t.String({
        minLength: 2,
        maxLength: 200,
        pattern: '^\\$(\\.[A-Za-z0-9_-]+|\\[[0-9]+\\])+$',
        description: 'http: a JSON path into the answer ($.a.b[0].c); with json_expected',
      }),
    ),
    json_expected: t.Optional(t.String({ maxLength: 200, description: 'http: the value at json_path, compared as text' })),
    follow_redirects: t.Optional(t.Boolean({ description: 'http: default true (at most 5, each checked against the outbound policy)' })),
    verify_tls: t.Optional(t.Boolean({ description: 'http, tls: verify the certificate chain and name; default true' })),
    slow_ms: t.Optional(
      Type.Integer({ minimum: 1, maximum: 600_000, description: 'http, tcp, ping, dns, tls: slower than this is "slow" (an alert condition)' }),
    ),
    cert_warn_days: t.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 365,
        description: 'https, tls: the certificate-expiry warning, in days left (default 14): check:cert_expiring is 1 inside it (an alert condition)',
      }),
    ),
    host: t.Optional(Host),
    port: t.Optional(Port),
    name: t.Optional(t.String({ minLength: 1, maxLength: 253, description: 'dns: the name to resolve' })),
    record_type: t.Optional(
      t.Union(
        [
          t.Literal('A'),
          t.Literal('AAAA'),
          t.Literal('CNAME'),
          t.Literal('MX'),
          t.Literal('TXT'),
          t.Literal('NS'),
          t.Literal('SRV'),
          t.Literal('PTR'),
          t.Literal('CAA'),
        ],
        { description: 'dns: default A' },
      ),
    ),
    expected: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 500 }), {
        maxItems: 20,
        description: 'dns: answers that must all be present (any order; others may be present too)',
      }),
    ),
    resolver: t.Optional(
      t.String({ minLength: 1, maxLength: 60, description: 'dns: the resolver asked, an IP address with an optional :port (default: the system resolver)' }),
    ),
    period_s: t.Optional(Type.Integer({ minimum: 10, maximum: 35 * 86400, description: 'heartbeat: how often the job calls' })),
    grace_s: t.Optional(
      Type.Integer({ minimum: 0, maximum: 7 * 86400, description: 'heartbeat: how late a call may be before the check is down (default 60)' }),
    ),
  },
  { additionalProperties: false },
)
export type CheckSettings = Static<typeof CheckSettings>

const Name = t.String({ minLength: 1, maxLength: 100 })
const DeviceIds = t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 20, description: 'agents that run the check (their devices)' })

const schedule = {
  interval_s: t.Optional(Type.Integer({ minimum: 10, maximum: 86400, description: 'default 60' })),
  timeout_ms: t.Optional(Type.Integer({ minimum: 100, maximum: 60_000, description: 'default 10000, at most the interval' })),
  down_after: t.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'consecutive failures before down; default 3' })),
  up_after: t.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'consecutive successes before up again; default 2' })),
  run_on_hub: t.Optional(t.Boolean({ description: 'the hub runs it (default true unless device_ids are given)' })),
  device_ids: t.Optional(DeviceIds),
  depends_on_device_id: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 100, description: 'while that device is offline, no notice of its own' }))),
  paused: t.Optional(t.Boolean()),
}

export const CheckCreate = t.Object({ name: Name, kind: CheckKindSchema, settings: CheckSettings, ...schedule })
export type CheckCreate = Static<typeof CheckCreate>

export const CheckPatch = t.Object({ name: t.Optional(Name), settings: t.Optional(CheckSettings), ...schedule })
export type CheckPatch = Static<typeof CheckPatch>

/** "Test now": a definition run once, nothing saved. */
export const CheckTest = t.Object({ kind: CheckKindSchema, settings: CheckSettings, timeout_ms: schedule.timeout_ms })
export type CheckTest = Static<typeof CheckTest>

const Iso = t.String({ format: 'date-time' })

export const CheckState = t.Union([t.Literal('up'), t.Literal('down'), t.Literal('degraded'), t.Literal('paused'), t.Literal('pending')], {
  description: 'pending: not enough results yet; degraded: down from some places, up from others',
})
export type CheckState = Static<typeof CheckState>

/** One attempt's outcome, as a probe reports it (also what POST /v1/checks/test answers). */
export const ProbeResult = t.Object({
  ok: t.Boolean(),
  response_ms: t.Nullable(t.Number()),
  status_code: t.Nullable(Type.Integer({ description: 'HTTP status; null for other kinds' })),
  error: t.Nullable(t.String({ description: 'why it failed ("timeout after 10000 ms", "connection refused", "keyword absent")' })),
  cert_expires_at: t.Nullable(Iso),
  detail: t.Nullable(t.String({ description: 'the raw answer, shortened: the first 1,024 bytes of an HTTP body, the DNS answers, the ping line' })),
})
export type ProbeResult = Static<typeof ProbeResult>

export const PlaceView = t.Object({
  place: t.String({ description: '"hub" or the id of the device whose agent runs it' }),
  state: CheckState,
  last_checked_at: t.Nullable(Iso),
  ok: t.Nullable(t.Boolean()),
  response_ms: t.Nullable(t.Number()),
  error: t.Nullable(t.String()),
})

export const CheckResponse = t.Object({
  id: t.String(),
  name: t.String(),
  kind: CheckKindSchema,
  settings: CheckSettings,
  interval_s: Type.Integer(),
  timeout_ms: Type.Integer(),
  down_after: Type.Integer(),
  up_after: Type.Integer(),
  run_on_hub: t.Boolean(),
  device_ids: t.Array(t.String()),
  depends_on_device_id: t.Nullable(t.String()),
  paused: t.Boolean(),
  state: CheckState,
  state_since: t.Nullable(Iso),
  last_checked_at: t.Nullable(Iso),
  last_response_ms: t.Nullable(t.Number()),
  last_status_code: t.Nullable(Type.Integer()),
  last_error: t.Nullable(t.String()),
  cert_expires_at: t.Nullable(Iso),
  places: t.Array(PlaceView, { description: 'each place that runs it, with its own state' }),
  heartbeat_token: t.Nullable(t.String({ description: 'heartbeat: the secret token, in the creation and rotation answers only, null ever after' })),
  heartbeat_url: t.Nullable(
    t.String({ description: 'heartbeat: the URL to call (GET or POST; /fail appended reports a failure), with the token only when it is shown' }),
  ),
  heartbeat_token_hint: t.Nullable(t.String({ description: 'heartbeat: the last 4 characters of the token' })),
  created_at: Iso,
  updated_at: Iso,
})
export type CheckResponse = Static<typeof CheckResponse>

const Uptime = t.Nullable(t.Number({ description: 'percent of attempts that succeeded; null without results' }))

export const CheckListItem = t.Object({
  ...CheckResponse.properties,
  uptime_24h: Uptime,
  sparkline: t.Array(t.Nullable(t.Number()), { description: 'mean response time (ms) of each half hour over the last 24 h, oldest first' }),
})
export type CheckListItem = Static<typeof CheckListItem>

const Percentiles = t.Object({ p50: t.Nullable(t.Number()), p95: t.Nullable(t.Number()), p99: t.Nullable(t.Number()) })

export const CheckDetail = t.Object({
  ...CheckResponse.properties,
  uptime: t.Object({ '24h': Uptime, '7d': Uptime, '30d': Uptime, '365d': Uptime }),
  response_time: t.Object({ '24h': Percentiles, '30d': Percentiles }, { description: 'response-time percentiles in ms over successful attempts' }),
})
export type CheckDetail = Static<typeof CheckDetail>

export const CheckParams = t.Object({ check_id: t.String({ minLength: 1, maxLength: 100 }) })
export const TokenParams = t.Object({ token: t.String({ minLength: 1, maxLength: 200 }) })

export const ResultsQuery = t.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  place: t.Optional(t.String({ minLength: 1, maxLength: 100, description: '"hub" or a device id' })),
})
export type ResultsQuery = Static<typeof ResultsQuery>

export const ResultItem = t.Object({
  ts: Iso,
  place: t.String(),
  ok: t.Boolean(),
  response_ms: t.Nullable(t.Number()),
  status_code: t.Nullable(Type.Integer()),
  error: t.Nullable(t.String()),
})
export const ResultsPage = t.Object({
  items: t.Array(ResultItem, { description: 'newest first; raw attempts are kept 48 hours, summaries longer' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer(),
})

export const SeriesQuery = t.Object({
  range: t.Union([t.Literal('1h'), t.Literal('6h'), t.Literal('24h'), t.Literal('7d'), t.Literal('30d'), t.Literal('90d'), t.Literal('365d')], {
    default: '24h',
  }),
})
export type SeriesQuery = Static<typeof SeriesQuery>
export const SeriesResponse = t.Object({
  range: t.String(),
  step_s: Type.Integer({ description: 'the resolution fitted to the range' }),
  points: t.Array(
    t.Object({
      t: Iso,
      avg_ms: t.Nullable(t.Number()),
      max_ms: t.Nullable(t.Number()),
      uptime: t.Nullable(t.Number({ description: 'percent of attempts that succeeded in the step' })),
    }),
  ),
})

export const IncidentItem = t.Object({
  id: t.String(),
  started_at: Iso,
  ended_at: t.Nullable(Iso),
  cause: t.Nullable(t.String({ description: 'the error that brought it down' })),
  duration_s: t.Nullable(Type.Integer()),
})
export const IncidentsQuery = t.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
})
export const IncidentsPage = t.Object({ items: t.Array(IncidentItem), limit: Type.Integer(), offset: Type.Integer(), total: Type.Integer() })

export const HeartbeatAck = t.Object({ ok: t.Boolean(), state: CheckState })

/** One result of a check an agent runs, as its batch carries it (wire: `check_results`). */
export const CheckResultIn = t.Object({
  check_id: t.String({ minLength: 1, maxLength: 100, description: 'as given by GET /v1/agent/checks' }),
  ts: t.String({ format: 'date-time', description: "when the attempt started (the agent's clock)" }),
  ok: t.Boolean(),
  response_ms: t.Nullable(t.Number({ minimum: 0, maximum: 3_600_000 })),
  status_code: t.Nullable(Type.Integer({ minimum: 0, maximum: 999, description: 'HTTP status; null for other kinds' })),
  error: t.Nullable(t.String({ maxLength: 500, description: 'why it failed' })),
  cert_expires_at: t.Nullable(t.String({ format: 'date-time', description: "the TLS leaf certificate's notAfter when seen" })),
})
export type CheckResultIn = Static<typeof CheckResultIn>
export const CheckResultsIn = t.Array(CheckResultIn, {
  maxItems: MAX_CHECK_RESULTS,
  description: 'results of checks this agent runs (store-and-forward: each carries its time)',
})

/** What an agent runs: the definition the portal edits, without what only the hub needs. */
export const CheckDefinition = t.Object({
  id: t.String(),
  name: t.String(),
  kind: CheckKindSchema,
  settings: CheckSettings,
  interval_s: Type.Integer(),
  timeout_ms: Type.Integer(),
})
export type CheckDefinition = Static<typeof CheckDefinition>
export const AgentChecksQuery = t.Object({ device_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "default: the key's device" })) })
export const AgentChecksResponse = t.Object({
  checks: t.Array(CheckDefinition),
  etag: t.String({ description: 'send it back in If-None-Match: 304 while nothing changed' }),
})
