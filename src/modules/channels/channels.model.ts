import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'

export const KIND_IDS = ['webhook', 'email', 'ntfy', 'gotify', 'discord', 'slack', 'telegram', 'teams', 'pushover'] as const
export type KindId = (typeof KIND_IDS)[number]

// Literals, not t.UnionEnum: Elysia fills an absent UnionEnum with its first member.
const Kind = t.Union([
  t.Literal('webhook'),
  t.Literal('email'),
  t.Literal('ntfy'),
  t.Literal('gotify'),
  t.Literal('discord'),
  t.Literal('slack'),
  t.Literal('telegram'),
  t.Literal('teams'),
  t.Literal('pushover'),
])
export const SEVERITIES = ['info', 'warning', 'critical'] as const
export type Severity = (typeof SEVERITIES)[number]
const SeverityT = t.Union([t.Literal('info'), t.Literal('warning'), t.Literal('critical')])

/**
 * What the alerts module hands the channels (alerts-contract.md): one notification, already
 * worded. The alerts module builds a structurally identical object.
 */
export const ChannelNotification = t.Object({
  event: t.Union([t.Literal('firing'), t.Literal('resolved'), t.Literal('acknowledged'), t.Literal('test'), t.Literal('digest')]),
  severity: SeverityT,
  /** one line, e.g. "CRITICAL: disk / above 90% on web-1" */
  title: t.String(),
  /** plain text, a few lines */
  body: t.String(),
  /** the portal page, null if unknown */
  url: t.Nullable(t.String()),
  devices: t.Array(t.Object({ id: t.String(), name: t.String() })),
  rule: t.Nullable(t.Object({ id: t.String(), name: t.String() })),
  alert_ids: t.Array(t.String()),
  timestamp: t.String({ format: 'date-time' }),
})
export type ChannelNotification = Static<typeof ChannelNotification>

/** One value of a channel's settings; which names and types a kind takes is in GET /v1/channels/kinds. */
const ConfigValue = t.Union([t.String({ maxLength: 4000 }), t.Number(), t.Boolean(), t.Array(t.String({ maxLength: 320 }), { maxItems: 20 }), t.Null()])
const ConfigInput = t.Record(t.String({ maxLength: 64 }), ConfigValue, {
  maxProperties: 64,
  description: "the kind's fields by name (GET /v1/channels/kinds), at most 64; secret fields are write-only, null removes an optional one",
})

export const KindField = t.Object({
  name: t.String(),
  label: t.String(),
  type: t.UnionEnum(['string', 'url', 'email', 'integer', 'boolean', 'enum', 'string_list']),
  required: t.Boolean(),
  /** stored encrypted, write-only, shown masked */
  secret: t.Boolean(),
  default: t.Union([t.String(), t.Number(), t.Boolean(), t.Null()]),
  description: t.String(),
  options: t.Optional(t.Array(t.String())),
  minimum: t.Optional(t.Number()),
  maximum: t.Optional(t.Number()),
})

export const KindInfo = t.Object({
  id: Kind,
  name: t.String(),
  description: t.String(),
  /** the Shoutrrr scheme this kind imports from and exports to */
  shoutrrr: t.String(),
  fields: t.Array(KindField),
})
export const KindList = t.Object({ items: t.Array(KindInfo) })

export const ChannelView = t.Object({
  id: t.String(),
  name: t.String(),
  kind: Kind,
  enabled: t.Boolean(),
  /** notifications below this severity are not sent here */
  min_severity: SeverityT,
  /** the non-secret settings */
  config: t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean(), t.Array(t.String())])),
  /** each secret that is set, masked ("••••" and at most its last 4 characters) */
  secrets: t.Record(t.String(), t.String()),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})
export type ChannelView = Static<typeof ChannelView>

const Name = t.String({ minLength: 1, maxLength: 100 })

export const ChannelCreate = t.Object(
  {
    name: Name,
    kind: Kind,
    config: ConfigInput,
    enabled: t.Optional(t.Boolean()),
    min_severity: t.Optional(SeverityT),
  },
  { additionalProperties: false },
)
export type ChannelCreate = Static<typeof ChannelCreate>

export const ChannelPatch = t.Object(
  {
    name: t.Optional(Name),
    /** only the fields given change; a secret left out keeps its value */
    config: t.Optional(ConfigInput),
    enabled: t.Optional(t.Boolean()),
    min_severity: t.Optional(SeverityT),
  },
  { additionalProperties: false },
)
export type ChannelPatch = Static<typeof ChannelPatch>

export const ChannelParams = t.Object({ channel_id: t.String({ minLength: 1, maxLength: 100 }) })

export const ShoutrrrImport = t.Object(
  {
    url: t.String({ minLength: 1, maxLength: 4000 }),
    /** default: the kind's name and the target's host */
    name: t.Optional(Name),
    min_severity: t.Optional(SeverityT),
  },
  { additionalProperties: false },
)
export type ShoutrrrImport = Static<typeof ShoutrrrImport>

export const ShoutrrrExport = t.Object({
  /** the Shoutrrr URL, secrets included: treat it like a password */
  url: t.String(),
})

export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'failed'] as const

export const AttemptView = t.Object({
  attempt: Type.Integer(),
  at: t.String({ format: 'date-time' }),
  duration_ms: Type.Integer(),
  /** the service's HTTP status (250 for an accepted email), null when no answer came */
  http_status: t.Nullable(Type.Integer()),
  outcome: t.String({ description: 'ok | http_error | rate_limited | refused | unreachable | redirect | invalid | error' }),
  error: t.Nullable(t.String()),
  /** the first characters of the service's answer, secrets removed */
  excerpt: t.Nullable(t.String()),
})

export const DeliveryView = t.Object({
  id: t.String(),
  channel_id: t.String(),
  event: t.String(),
  severity: SeverityT,
  title: t.String(),
  status: t.Union([t.Literal('pending'), t.Literal('sending'), t.Literal('delivered'), t.Literal('failed')]),
  attempts: t.Array(AttemptView),
  next_attempt_at: t.Nullable(t.String({ format: 'date-time' })),
  created_at: t.String({ format: 'date-time' }),
  finished_at: t.Nullable(t.String({ format: 'date-time' })),
})
export type DeliveryView = Static<typeof DeliveryView>

export const DeliveryQuery = t.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  status: t.Optional(t.String({ pattern: `^(${DELIVERY_STATUSES.join('|')})$`, description: DELIVERY_STATUSES.join(' | ') })),
})

export const DeliveryPage = t.Object({
  items: t.Array(DeliveryView),
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer(),
})

export const TestResult = t.Object({
  ok: t.Boolean(),
  delivery_id: t.String(),
  http_status: t.Nullable(Type.Integer()),
  outcome: t.String(),
  error: t.Nullable(t.String()),
  duration_ms: Type.Integer(),
})
export type TestResult = Static<typeof TestResult>
