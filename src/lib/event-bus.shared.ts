/**
 * Which of the bus's events the other hubs hear (several hubs on one PostgreSQL), and why: each
 * is born on one hub only (the one a collector posted to, the one that handled the request, the
 * one that ran the job once), yet a user's live stream may be open on any hub. This is the one
 * list; an event type not in it stays on the hub that published it.
 */
export const SHARED_EVENTS: Readonly<Record<string, string>> = {
  sample: 'stored by the hub the collector posted to; the stream showing it may be on another',
  'device.registered': 'made by the request one hub handled',
  'device.deleted': 'removed by the request one hub handled',
  'alert.firing': 'the alert runtime fires an alert once, on one hub',
  'alert.resolved': 'resolved once, on one hub, as it fired',
  'alert.acknowledged': 'acknowledged by the request one hub handled',
  'subscription.updated': 'the billing webhook one hub handled',
  'recommendation.created': 'made by a job that runs once across the hubs',
  'endpoint.disabled': 'disabled by the delivery one hub claimed',
}

/**
 * Not shared, on purpose: `device.status`. Every hub keeps each device's status itself, from the
 * samples it stores and those it hears (`sample` above) and from the shared last_seen_at its
 * sweep reads, and tells its own streams of each change; sent across too, every change would
 * reach a stream twice.
 */
export const isShared = (type: string): boolean => Object.hasOwn(SHARED_EVENTS, type)

/** the link's topic for bus events */
export const BUS_TOPIC = 'bus'
