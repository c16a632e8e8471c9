import { t } from 'elysia'

export const EventsQuery = t.Object({
  device_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "only this device's events (and none about other devices)" })),
})

/** The event types the stream carries, for the docs. */
export const LIVE_EVENT_TYPES = [
  'sample',
  'device.status',
  'device.registered',
  'device.deleted',
  'alert.firing',
  'alert.resolved',
  'alert.acknowledged',
  'reset',
] as const

/** OpenAPI for the 200 answer: a stream, not a JSON body. */
export const EVENT_STREAM_RESPONSE = {
  description:
    "A text/event-stream that stays open: each event is `id: <epoch>-<seq>` (seq counts this account's events only), `event: <type>`, `data: <JSON {type, timestamp, data}>`; " +
    `types ${LIVE_EVENT_TYPES.join(', ')}; a \`: ping\` comment every 15 s. It ends when the access token expires.`,
  content: { 'text/event-stream': { schema: { type: 'string' as const } } },
}
