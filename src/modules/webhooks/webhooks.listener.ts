import type { Clock } from '../../lib/clock'
import type { BusListener } from '../../lib/event-bus'
import type { BusEvent } from '../../lib/event-bus.event'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import { payloadOf, webhookDataOf, webhookTypeOf } from './webhooks.events'
import type { OutboxStore } from './webhooks.outbox'

export interface ListenerDeps {
  outbox: Pick<OutboxStore, 'enqueueEvent'>
  clock: Clock
  logger: Logger
  /** a device's name, null when it is gone */
  deviceName: (clientId: string, deviceId: string) => string | null
  /** rows were written for this client: the worker looks now */
  wake: (clientId: string, endpointIds: string[]) => void
}

/**
 * The bus listener that feeds the outbox. It runs inside `publish` and hands each event to one
 * store call that reads the client's subscribed endpoints and writes a row for each in one
 * transaction: on SQLite the rows are stored before the publisher goes on (they survive a kill
 * -9 from then on); on PostgreSQL the transaction is under way. The subscriptions are read from
 * the database each time, so an endpoint changed on another hub counts at once. Then the worker
 * is woken to send them.
 */
export function createOutboxListener(deps: ListenerDeps) {
  /** devices reported offline since start: their return is device.online even via stale */
  const offline = new Set<string>()
  /** writes under way (PostgreSQL): a stopping hub, or a test, waits for them */
  const writing = new Set<Promise<void>>()

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
    const now = deps.clock.now()
    const write = deps.outbox
      .enqueueEvent(event.client_id, type, (endpointIds) => {
        const payload = payloadOf(type, event.timestamp, webhookDataOf(event, deps.deviceName))
        const messageId = newId('msg')
        return endpointIds.map((endpointId) => ({
          id: newId('whd'),
          client_id: event.client_id,
          endpoint_id: endpointId,
          message_id: messageId,
          event_type: type,
          payload,
          created_at: now,
        }))
      })
      .then((endpointIds) => {
        if (endpointIds.length) deps.wake(event.client_id, endpointIds)
      })
      // the bus swallows a listener's error; this one must be seen
      .catch((err: Error) => deps.logger.error('webhook event not stored', { client_id: event.client_id, type, error: err.message }))
      .finally(() => writing.delete(write))
    writing.add(write)
  }

  return {
    listener,
    /** resolves once the events heard so far are stored (or their failure logged) */
    async settled() {
      while (writing.size) await Promise.all(writing)
    },
  }
}

export type OutboxListener = ReturnType<typeof createOutboxListener>
