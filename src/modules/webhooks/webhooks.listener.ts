import type { Clock } from '../../lib/clock'
import type { BusEvent, BusListener } from '../../lib/event-bus'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import { payloadOf, webhookDataOf, webhookTypeOf } from './webhooks.events'
import type { OutboxStore } from './webhooks.outbox'
import type { EndpointsStore } from './webhooks.store'

export interface ListenerDeps {
  endpoints: Pick<EndpointsStore, 'subscribed'>
  outbox: Pick<OutboxStore, 'enqueue'>
  clock: Clock
  logger: Logger
  /** a device's name, null when it is gone */
  deviceName: (clientId: string, deviceId: string) => string | null
  /** tells the delivery worker that rows were written */
  /** rows were written for this client: the worker looks now */
  wake: (clientId: string, endpointIds: string[]) => void
}

interface Subscription {
  endpointId: string
  types: Set<string>
}

/**
 * The bus listener that feeds the outbox. It runs inside `publish`, so it writes before the
 * publisher goes on: an event is in SQLite (one transaction, one row per subscribed endpoint)
 * before anything can crash, and the worker is woken to send it at once. Each client's
 * subscriptions are cached; the endpoints service drops a client's entry on every change.
 */
export function createOutboxListener(deps: ListenerDeps) {
  const subscriptions = new Map<string, Subscription[]>()
  /** devices reported offline since start: their return is device.online even via stale */
  const offline = new Set<string>()

  function subscriptionsOf(clientId: string): Subscription[] {
    let subs = subscriptions.get(clientId)
    if (!subs) {
      subs = deps.endpoints.subscribed(clientId).map((e) => ({ endpointId: e.id, types: new Set(JSON.parse(e.event_types) as string[]) }))
      subscriptions.set(clientId, subs)
    }
    return subs
  }

  function track(event: BusEvent) {
    const d = event.data as { device_id: string; status: string }
    if (d.status === 'offline') offline.add(d.device_id)
    else if (d.status === 'online') offline.delete(d.device_id)
  }

  const listener: BusListener = (event) => {
    // the many per-sample events: one comparison and out
    if (event.type === 'sample') return
    const type = webhookTypeOf(event, (id) => offline.has(id))
    if (event.type === 'device.status') track(event)
    if (!type) return
    const targets = subscriptionsOf(event.client_id).filter((s) => s.types.has(type))
    if (!targets.length) return
    const payload = payloadOf(type, event.timestamp, webhookDataOf(event, deps.deviceName))
    const messageId = newId('msg')
    const now = deps.clock.now()
    try {
      deps.outbox.enqueue(
        targets.map((s) => ({
          id: newId('whd'),
          client_id: event.client_id,
          endpoint_id: s.endpointId,
          message_id: messageId,
          event_type: type,
          payload,
          created_at: now,
        })),
      )
    } catch (err) {
      // the bus swallows a listener's error; this one must be seen
      deps.logger.error('webhook event not stored', { client_id: event.client_id, type, error: (err as Error).message })
      return
    }
    deps.wake(
      event.client_id,
      targets.map((s) => s.endpointId),
    )
  }

  return {
    listener,
    /** the client's endpoints changed: read them again on its next event */
    invalidate: (clientId: string) => void subscriptions.delete(clientId),
  }
}

export type OutboxListener = ReturnType<typeof createOutboxListener>
