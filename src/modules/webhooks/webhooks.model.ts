import { Type } from '@sinclair/typebox'
import { t, type Static } from 'elysia'
import { EVENT_TYPE_NAMES } from './webhooks.events'

export const EventTypeName = t.Union(EVENT_TYPE_NAMES.map((n) => t.Literal(n)))

const Url = t.String({ minLength: 1, maxLength: 2000, description: 'http(s); checked against the outbound policy (docs/outbound.md)' })
const Description = t.String({ maxLength: 500 })
const EventTypes = t.Array(EventTypeName, { minItems: 1, maxItems: EVENT_TYPE_NAMES.length * 2, description: 'duplicates are dropped' })

export const EndpointCreate = t.Object({
  url: Url,
  description: t.Optional(Description),
  event_types: EventTypes,
  enabled: t.Optional(t.Boolean()),
})
export type EndpointCreate = Static<typeof EndpointCreate>

export const EndpointPatch = t.Object({
  url: t.Optional(Url),
  description: t.Optional(Description),
  event_types: t.Optional(EventTypes),
  /** true re-enables a disabled endpoint (its held deliveries resume); false pauses it */
  enabled: t.Optional(t.Boolean()),
})
export type EndpointPatch = Static<typeof EndpointPatch>

export const RotateSecret = t.Object({
  previous_valid_seconds: t.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 7 * 86400,
      default: 86400,
      description: 'how long the previous secret keeps signing beside the new one (0: not at all)',
    }),
  ),
})
export type RotateSecret = Static<typeof RotateSecret>

const Iso = t.String({ format: 'date-time' })

export const EndpointResponse = t.Object({
  id: t.String(),
  url: t.String(),
  description: t.String(),
  event_types: t.Array(t.String()),
  enabled: t.Boolean(),
  disabled_reason: t.Nullable(t.Union([t.Literal('manual'), t.Literal('gone'), t.Literal('failing')])),
  disabled_at: t.Nullable(Iso),
  /** the whsec_ secret: in the creation and rotation answers only, null ever after */
  secret: t.Nullable(t.String()),
  secret_hint: t.String({ description: 'the last 4 characters of the current secret' }),
  previous_secret_expires_at: t.Nullable(Iso),
  failing_since: t.Nullable(Iso),
  created_at: Iso,
  updated_at: Iso,
})
export type EndpointResponse = Static<typeof EndpointResponse>

export const EndpointParams = t.Object({ endpoint_id: t.String({ minLength: 1, maxLength: 100 }) })
export const DeliveryParams = t.Object({ delivery_id: t.String({ minLength: 1, maxLength: 100 }) })

/** held: its endpoint is disabled; it goes out when the endpoint is enabled again */
export const DeliveryStatus = t.Union([t.Literal('pending'), t.Literal('sending'), t.Literal('held'), t.Literal('succeeded'), t.Literal('failed')])
export type DeliveryStatus = Static<typeof DeliveryStatus>

export const DeliveryQuery = t.Object({
  endpoint_id: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  /** a pattern, not a union: the query reader takes scalar schemas */
  status: t.Optional(t.String({ pattern: '^(pending|sending|held|succeeded|failed)$', description: 'pending, sending, held, succeeded or failed' })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
})
export type DeliveryQuery = Static<typeof DeliveryQuery>

export const AttemptResponse = t.Object({
  attempt: Type.Integer(),
  at: Iso,
  status_code: t.Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  error: t.Nullable(t.String()),
  response_excerpt: t.Nullable(t.String({ description: 'the first 1,024 bytes of the answer' })),
})

export const DeliveryResponse = t.Object({
  id: t.String(),
  endpoint_id: t.String(),
  message_id: t.String({ description: 'the webhook-id header: the same on every attempt and resend' }),
  event_type: t.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  next_attempt_at: t.Nullable(Iso),
  last_attempt_at: t.Nullable(Iso),
  last_status_code: t.Nullable(Type.Integer()),
  last_error: t.Nullable(t.String()),
  created_at: Iso,
  delivered_at: t.Nullable(Iso),
})
export type DeliveryResponse = Static<typeof DeliveryResponse>

export const DeliveryDetail = t.Object({
  ...DeliveryResponse.properties,
  payload: t.Unknown({ description: 'the body as sent' }),
  attempt_log: t.Array(AttemptResponse),
})
export type DeliveryDetail = Static<typeof DeliveryDetail>

export const DeliveryPage = t.Object({ items: t.Array(DeliveryResponse), limit: Type.Integer(), offset: Type.Integer(), total: Type.Integer() })

export const EventTypeInfo = t.Object({ type: t.String(), description: t.String() })
export const EventTypeList = t.Object({ items: t.Array(EventTypeInfo), payload_version: Type.Integer() })
