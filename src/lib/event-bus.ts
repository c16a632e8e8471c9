import type { Clock } from './clock'
import { toIso } from './clock'

/**
 * One event of a client's live stream: a new sample, a device's status change, an alert.
 * `seq` grows by one per event across the whole process; with `boot` (new at every start) it
 * names a point in the stream a reader can resume from.
 */
export interface BusEvent<T = unknown> {
  seq: number
  client_id: string
  type: string
  timestamp: string
  data: T
}

export type BusListener = (event: BusEvent) => void

export interface EventBus {
  /** differs at every start: a resume point from another run cannot be honoured */
  readonly boot: string
  /** Tells the client's subscribers now (synchronously) and keeps the event for resuming readers. */
  publish<T>(clientId: string, type: string, data: T): BusEvent<T>
  /** Called for each of the client's events until the returned function is called. */
  subscribe(clientId: string, listener: BusListener): () => void
  /**
   * The client's kept events after `seq`, oldest first; null when events after `seq` were
   * already dropped (the reader missed some and must reload what it shows).
   */
  since(clientId: string, seq: number): BusEvent[] | null
  /**
   * Called for every client's events until the returned function is called (outbound webhooks:
   * a listener that must be durable writes the event to its own table before returning).
   */
  subscribeAll(listener: BusListener): () => void
  /** the seq of the newest event published (0 before the first): where a reader stands once it has caught up */
  position(): number
  /** how many listeners are subscribed, over all clients */
  listenerCount(): number
}

export interface EventBusOptions {
  clock: Clock
  /** events kept per client for readers that reconnect */
  keep?: number
}

function tell(listener: BusListener, event: BusEvent) {
  try {
    listener(event)
  } catch {
    // one faulty reader must not stop the others or the publisher
  }
}

/**
 * In-process publish/subscribe, per client. Nothing here is durable: a listener that must not
 * miss an event across a restart (outbound webhooks) writes it to its own table when told.
 * A listener that throws does not stop the others: its error is swallowed.
 */
export function createEventBus({ clock, keep = 500 }: EventBusOptions): EventBus {
  const boot = crypto.randomUUID().slice(0, 8)
  const listeners = new Map<string, Set<BusListener>>()
  const everyClient = new Set<BusListener>()
  /** per client, a ring of its last `keep` events */
  const kept = new Map<string, BusEvent[]>()
  /** per client, the seq of the newest event pushed out of its ring */
  const dropped = new Map<string, number>()
  let seq = 0
  let count = 0

  return {
    boot,
    publish(clientId, type, data) {
      const event = { seq: ++seq, client_id: clientId, type, timestamp: toIso(clock.now()), data }
      let ring = kept.get(clientId)
      if (!ring) kept.set(clientId, (ring = []))
      ring.push(event)
      if (ring.length > keep) dropped.set(clientId, ring.splice(0, ring.length - keep).at(-1)!.seq)
      for (const listener of everyClient) tell(listener, event)
      for (const listener of listeners.get(clientId) ?? []) tell(listener, event)
      return event
    },
    subscribe(clientId, listener) {
      let set = listeners.get(clientId)
      if (!set) listeners.set(clientId, (set = new Set()))
      set.add(listener)
      count++
      return () => {
        if (set.delete(listener)) count--
        if (set.size === 0) listeners.delete(clientId)
      }
    },
    subscribeAll(listener) {
      everyClient.add(listener)
      count++
      return () => {
        if (everyClient.delete(listener)) count--
      }
    },
    since(clientId, after) {
      if ((dropped.get(clientId) ?? 0) > after) return null
      return (kept.get(clientId) ?? []).filter((e) => e.seq > after)
    },
    position: () => seq,
    listenerCount: () => count,
  }
}
