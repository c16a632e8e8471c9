import type { BusEvent } from '../../lib/event-bus.event'

/**
 * The events an endpoint may subscribe to, with what their `data` holds. The payload is
 * `{type, timestamp, data, version}`; within a version, fields are only ever added, so a
 * receiver should ignore the ones it does not know.
 */
export const PAYLOAD_VERSION = 1

export const EVENT_TYPES = {
  'alert.firing': 'An alert started: data.alert is the alert as GET /v1/alerts/{id} returns it.',
  'alert.resolved': 'An alert ended: data.alert, with resolved_at set.',
  'alert.acknowledged': 'Someone acknowledged an alert: data.alert, with acknowledged {by, at, note}.',
  'device.registered': 'A device was registered (or enrolled): data.device, as GET /v1/clients/me/devices/{id} returns it.',
  'device.deleted': 'A device was deleted: data.device_id.',
  'device.offline': 'A device stopped reporting and is now offline: data.device {id, name}, previous, last_seen_at.',
  'device.online': 'An offline device reports again: data.device {id, name}, previous, last_seen_at.',
  'recommendation.created': 'A recommendation was stored (from a collector or the engine): data.recommendation.',
  'subscription.updated': "The account's subscription or plan changed: data.subscription, data.plan_type.",
  'endpoint.disabled': 'One of your webhook endpoints was disabled (it answered 410, or failed for days): data.endpoint {id, url}, reason.',
} as const

export type EventType = keyof typeof EVENT_TYPES
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[]

/** Sent only by POST /v1/webhooks/endpoints/{id}/test, to that endpoint whatever it subscribes to. */
export const TEST_EVENT = 'webhook.test'

const SUBSCRIBABLE = new Set<string>(EVENT_TYPE_NAMES)

interface DeviceStatusData {
  device_id: string
  status: string
  previous: string
  last_seen_at: string | null
}

/**
 * The webhook event type a bus event becomes, or null: most pass as they are; `device.status`
 * becomes `device.offline` when a device goes offline and `device.online` when it reports again
 * after having been offline (`wasOffline` remembers offline → stale → online, which the bus
 * reports with previous: stale). Cheap: no lookup, so events nobody subscribes to cost nothing.
 */
export function webhookTypeOf(event: BusEvent, wasOffline: (deviceId: string) => boolean): EventType | null {
  if (event.type === 'device.status') {
    const d = event.data as DeviceStatusData
    if (d.status === 'offline' && d.previous !== 'offline') return 'device.offline'
    if (d.status === 'online' && (d.previous === 'offline' || wasOffline(d.device_id))) return 'device.online'
    return null
  }
  return SUBSCRIBABLE.has(event.type) ? (event.type as EventType) : null
}

/** The payload's `data` for a bus event; a status change names its device (null when it is gone). */
export function webhookDataOf(event: BusEvent, deviceName: (clientId: string, deviceId: string) => string | null): unknown {
  if (event.type !== 'device.status') return event.data
  const d = event.data as DeviceStatusData
  return { device: { id: d.device_id, name: deviceName(event.client_id, d.device_id) }, status: d.status, previous: d.previous, last_seen_at: d.last_seen_at }
}

/** The body as sent: serialised once, stored, and signed as these exact bytes on every attempt. */
export const payloadOf = (type: string, timestamp: string, data: unknown) => JSON.stringify({ type, timestamp, data, version: PAYLOAD_VERSION })
