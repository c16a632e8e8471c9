import type { Clock } from './clock'
import { type BusEvent, LazyEvent, peerEvent } from './event-bus.event'
import { BUS_TOPIC, isShared } from './event-bus.shared'
import type { PeerLink } from './peer-link'

export type BusListener = (event: BusEvent) => void
/** the client's stream started anew (a new epoch at `point`): what the reader shows may lack events, and must be reloaded */
export type BusRestart = (point: StreamPoint) => void
/** an event heard from another hub, before this hub keeps it */
export type PeerListener = (clientId: string, type: string, data: unknown) => void

/** Where a client's stream stands: the newest seq within the current epoch. */
export interface StreamPoint {
  /** new each time the client's stream starts (the hub started, or its idle stream was let go): a point of another epoch cannot be honoured */
  epoch: string
  /** the seq of the client's newest event (0 before the first) */
  seq: number
}

export interface EventBus {
  /** Tells the client's subscribers now (synchronously) and keeps the event for resuming readers. */
  publish<T>(clientId: string, type: string, data: T): BusEvent<T>
  /**
   * The same, with the data made by `make` only when something reads it: a listener, a client's
   * stream kept for its readers, the other hubs. An event nothing reads (no stream of the client
   * was ever opened, no listener wants it) costs its seq alone. `make` must give what publishing
   * at once would have given, whenever it is called.
   */
  publishLazy<T>(clientId: string, type: string, make: () => T): BusEvent<T>
  /**
   * Called for each of the client's events until the returned function is called; `restarted`
   * when the client's stream starts anew while subscribed (this hub missed other hubs' events).
   */
  subscribe(clientId: string, listener: BusListener, restarted?: BusRestart): () => void
  /**
   * The client's kept events after `seq` of `epoch`, oldest first; null when that point cannot be
   * resumed from: another epoch, a seq this epoch never reached, or events after it already dropped
   * (the reader missed some and must reload what it shows). Events are kept from the moment the
   * epoch is first handed out (position, subscribe): no reader can name a point before it.
   */
  since(clientId: string, epoch: string, seq: number): BusEvent[] | null
  /**
   * Called for every client's events published on this hub until the returned function is called
   * (outbound webhooks: a listener that must be durable writes the event to its own table before
   * returning). Events heard from other hubs are not told here: their own hub told its listeners.
   */
  subscribeAll(listener: BusListener): () => void
  /**
   * Called for every event heard from another hub, until the returned function is called: before
   * it is kept and told to the client's listeners, as a hub's own hooks run before it publishes
   * (what the listener publishes then comes first, in the order the publishing hub had it).
   */
  subscribePeers(listener: PeerListener): () => void
  /** where the client's stream stands: where a reader stands once it has caught up */
  position(clientId: string): StreamPoint
  /** how many listeners are subscribed, over all clients */
  listenerCount(): number
  /** the clients' kept events: how many rings and their approximate bytes (the JSON kept) */
  kept(): { rings: number; events: number; bytes: number }
}

export interface EventBusOptions {
  clock: Clock
  /** events kept per client for readers that reconnect */
  keep?: number
  /** and at most this many bytes of them per client */
  keepBytes?: number
  /** a client with no listener and no new event for this long has its kept events let go */
  idleMs?: number
  /** all clients' kept events together; past it, the rings nobody listens to go first, least recently used */
  totalBytes?: number
  /**
   * the other hubs (several on one PostgreSQL): the events event-bus.shared.ts lists are sent to
   * them, and theirs are kept and told here as if published here, but not sent back
   */
  peers?: PeerLink
}

export const KEEP_EVENTS = 500
export const KEEP_BYTES = 256 * 1024
export const IDLE_MS = 10 * 60_000
export const TOTAL_BYTES = 64 * 1024 * 1024
/** what a kept event costs beyond its JSON: the object, its type and timestamp */
const EVENT_OVERHEAD = 96

interface Kept {
  seq: number
  type: string
  timestamp: string
  json: string
  bytes: number
}

/** One client's stream: its seq counter, its kept events and who listens. */
interface Ring {
  epoch: string
  seq: number
  events: Kept[]
  /** index of the oldest kept event in `events` (dropped ones are spliced off in chunks) */
  head: number
  bytes: number
  /** the seq of the newest event let go (0: none) */
  dropped: number
  /** a reader was handed this epoch (position, subscribe): events are kept for it from then on */
  known: boolean
  /** each listener, with what to call when the stream starts anew */
  listeners: Map<BusListener, BusRestart | undefined>
  lastUsed: number
}

function tell(listener: BusListener, event: BusEvent) {
  try {
    listener(event)
  } catch {
    // one faulty reader must not stop the others or the publisher
  }
}

const newEpoch = () => crypto.randomUUID().replaceAll('-', '').slice(0, 12)

/**
 * In-process publish/subscribe, per client. Nothing here is durable: a listener that must not
 * miss an event across a restart (outbound webhooks) writes it to its own table when told.
 * A listener that throws does not stop the others: its error is swallowed. Memory is bounded
 * over any number of clients: each keeps at most `keep` events and `keepBytes`, a client idle
 * (no listener, nothing new) for `idleMs` is let go, and all together stay under `totalBytes`.
 */
export function createEventBus({
  clock,
  keep = KEEP_EVENTS,
  keepBytes = KEEP_BYTES,
  idleMs = IDLE_MS,
  totalBytes = TOTAL_BYTES,
  peers,
}: EventBusOptions): EventBus {
  /** in order of last use, least recent first (a use moves a ring to the end) */
  const rings = new Map<string, Ring>()
  const everyClient = new Set<BusListener>()
  const fromPeers = new Set<PeerListener>()
  let count = 0
  let bytes = 0
  let events = 0
  let lastSweep = clock.now()

  /** the client whose ring is at the end of the map: touching it again moves nothing */
  let newest: string | null = null

  /** marks the ring used now: to the end of the map, which stays in order of last use */
  function touch(clientId: string, ring: Ring, now = clock.now()) {
    ring.lastUsed = now
    if (newest === clientId) return
    rings.delete(clientId)
    rings.set(clientId, ring)
    newest = clientId
  }

  function ringOf(clientId: string, now = clock.now()): Ring {
    const ring = rings.get(clientId) ?? {
      epoch: newEpoch(),
      seq: 0,
      events: [],
      head: 0,
      bytes: 0,
      dropped: 0,
      known: false,
      listeners: new Map<BusListener, BusRestart | undefined>(),
      lastUsed: 0,
    }
    touch(clientId, ring, now)
    return ring
  }

  function dropOldest(ring: Ring) {
    const e = ring.events[ring.head++]!
    ring.bytes -= e.bytes
    bytes -= e.bytes
    events--
    ring.dropped = e.seq
    // splice in chunks: one shift per event would copy the array each time
    if (ring.head >= 64 && ring.head * 2 >= ring.events.length) {
      ring.events.splice(0, ring.head)
      ring.head = 0
    }
  }

  function letGo(clientId: string, ring: Ring) {
    rings.delete(clientId)
    if (newest === clientId) newest = null
    bytes -= ring.bytes
    events -= ring.events.length - ring.head
  }

  /** lets go of idle rings; past the total, of the least recently used ones nobody listens to */
  function sweep(now: number, force: boolean, keepRing?: Ring) {
    if (!force && now - lastSweep < idleMs / 4) return
    lastSweep = now
    for (const [id, ring] of rings) {
      if (bytes <= totalBytes && now - ring.lastUsed < idleMs) break // the rest were used later
      if (ring.listeners.size === 0 && ring !== keepRing) letGo(id, ring)
    }
  }

  /**
   * A new epoch for the client's stream, its kept events let go: a reader cannot resume from a
   * point before it (events are missing there), and each listener is told to reload.
   */
  function restart(ring: Ring) {
    while (ring.events.length - ring.head > 0) dropOldest(ring)
    ring.events = []
    ring.head = 0
    ring.dropped = ring.seq
    ring.epoch = newEpoch()
    // the new epoch is known to the listeners told below only
    ring.known = ring.listeners.size > 0
    const point = { epoch: ring.epoch, seq: ring.seq }
    for (const restarted of ring.listeners.values()) {
      try {
        restarted?.(point)
      } catch {
        // as for tell: one faulty reader must not stop the others
      }
    }
  }

  /** keeps the event in the client's ring (once a reader knows its epoch) and tells its listeners; `local`: published on this hub */
  function emit<T>(clientId: string, type: string, data: { value: T } | { make: () => T }, local: boolean, json?: string, timestamp?: string): BusEvent<T> {
    const now = clock.now()
    const ring = ringOf(clientId, now)
    const event = new LazyEvent<T>(++ring.seq, clientId, type, now, data, json, timestamp)
    if (ring.known) keepIn(ring, event, now)
    else {
      // no reader can name a point of this epoch yet: nothing is kept, nor made for keeping
      ring.dropped = ring.seq
      sweep(now, false)
    }
    if (local) for (const listener of everyClient) tell(listener, event)
    for (const listener of ring.listeners.keys()) tell(listener, event)
    return event
  }
  function keepIn(ring: Ring, event: BusEvent, now: number) {
    const json = event.json!
    const size = json.length + event.type.length + EVENT_OVERHEAD
    ring.events.push({ seq: event.seq, type: event.type, timestamp: event.timestamp, json, bytes: size })
    ring.bytes += size
    bytes += size
    events++
    while (ring.events.length - ring.head > keep || (ring.bytes > keepBytes && ring.events.length - ring.head > 1)) dropOldest(ring)
    sweep(now, bytes > totalBytes, ring)
    // still past the total with every ring listened to: this client keeps no more than its share
    if (bytes > totalBytes) while (ring.bytes > totalBytes / rings.size && ring.events.length - ring.head > 1) dropOldest(ring)
  }

  function published<T>(clientId: string, type: string, data: { value: T } | { make: () => T }): BusEvent<T> {
    const event = emit(clientId, type, data, true)
    // the data's JSON as made once, inside the link's own: the bytes are not written twice
    if (peers && isShared(type)) peers.send(BUS_TOPIC, clientId, `{"t":${JSON.stringify(type)},"ts":${JSON.stringify(event.timestamp)},"d":${event.json}}`)
    return event
  }

  if (peers) {
    peers.on(BUS_TOPIC, (body, clientId) => {
      const heard = peerEvent(body)
      // only what a hub may send: a client's event of a shared type
      if (!heard || clientId === '' || !isShared(heard.type)) return
      for (const listener of fromPeers) {
        try {
          listener(clientId, heard.type, heard.data)
        } catch {
          // as for tell: a faulty listener must not stop the event
        }
      }
      emit(clientId, heard.type, { value: heard.data }, false, heard.json, heard.timestamp)
    })
    peers.onMissed((clientId) => {
      if (clientId === null) for (const ring of [...rings.values()]) restart(ring)
      else {
        const ring = rings.get(clientId)
        if (ring) restart(ring)
      }
    })
  }

  return {
    publish(clientId, type, data) {
      return published(clientId, type, { value: data })
    },
    publishLazy(clientId, type, make) {
      return published(clientId, type, { make })
    },
    subscribe(clientId, listener, restarted) {
      const ring = ringOf(clientId)
      ring.known = true
      ring.listeners.set(listener, restarted)
      count++
      sweep(clock.now(), false)
      return () => {
        if (!ring.listeners.delete(listener)) return
        count--
        // the idle clock starts when the last reader leaves
        if (ring.listeners.size === 0 && rings.get(clientId) === ring) touch(clientId, ring)
      }
    },
    subscribeAll(listener) {
      everyClient.add(listener)
      count++
      return () => {
        if (everyClient.delete(listener)) count--
      }
    },
    subscribePeers(listener) {
      fromPeers.add(listener)
      return () => void fromPeers.delete(listener)
    },
    since(clientId, epoch, after) {
      const ring = rings.get(clientId)
      if (!ring || ring.epoch !== epoch || after > ring.seq || after < ring.dropped) return null
      const out: BusEvent[] = []
      for (let i = ring.head; i < ring.events.length; i++) {
        const k = ring.events[i]!
        if (k.seq > after) out.push({ seq: k.seq, client_id: clientId, type: k.type, timestamp: k.timestamp, data: JSON.parse(k.json), json: k.json })
      }
      return out
    },
    position(clientId) {
      const ring = ringOf(clientId)
      ring.known = true
      return { epoch: ring.epoch, seq: ring.seq }
    },
    listenerCount: () => count,
    kept() {
      sweep(clock.now(), false)
      return { rings: rings.size, events, bytes }
    },
  }
}
