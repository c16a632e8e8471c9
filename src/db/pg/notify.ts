import type { SQL } from 'bun'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import type { PeerLink } from '../../lib/peer-link'
import { systemTimers, type Timers } from '../../lib/timers'
import { head, itemOf, lostJson, PAYLOAD_LIMIT, pack, type Payload, parsePayload, type Queued, referenceText } from './notify.wire'

/** the hubs' channel: every hub on the database listens to it */
export const CHANNEL = 'vigil_hubs'
/** what may wait to be sent, all accounts together, and one account's share of it */
export const QUEUE_BYTES = 8 * 1024 * 1024
export const KEY_BYTES = 512 * 1024
/** a message larger than this is not sent (the bus's events are a few hundred bytes) */
export const MAX_MESSAGE_BYTES = 1024 * 1024
/** rows of hub_messages older than this are deleted (by the hub writing the next one, once a minute at most) */
export const KEEP_ROWS_MS = 10 * 60_000
/** the wait before listening again when LISTEN itself failed, doubling up to the maximum */
export const RETRY_MIN_MS = 500
export const RETRY_MAX_MS = 30_000
/** accounts named in one payload as dropped; past it, "any account" */
const MAX_LOST_KEYS = 100
/** origins whose count is followed (hubs restart with new ids; the oldest are forgotten) */
const MAX_ORIGINS = 256

export interface PgPeerLinkOptions {
  logger: Logger
  clock: Clock
  timers?: Timers
  /** this hub's id; default a random one, new at each start */
  origin?: string
  channel?: string
  limit?: number
}

export interface PgPeerLink extends PeerLink {
  /** resolves once every message queued so far has been sent (or failed) */
  flushed(): Promise<void>
  /** stops listening and sending */
  close(): Promise<void>
}

/**
 * The hubs' link over PostgreSQL's LISTEN/NOTIFY, through Bun.SQL: `sql.listen` keeps one
 * dedicated connection and, when it drops, reconnects with backoff and listens again by itself
 * (that second LISTEN is how a drop shows here). Messages go out in order, one NOTIFY at a time,
 * packed several to a payload; what a receiver missed (its connection was down, a payload never
 * came, the sender dropped some past an account's share of the queue) is told to `onMissed`
 * listeners, never guessed at.
 */
export async function pgPeerLink(sql: SQL, o: PgPeerLinkOptions): Promise<PgPeerLink> {
  const origin = o.origin ?? crypto.randomUUID().replaceAll('-', '').slice(0, 16)
  const channel = o.channel ?? CHANNEL
  const limit = o.limit ?? PAYLOAD_LIMIT
  const timers = o.timers ?? systemTimers
  const { logger, clock } = o
  const topics = new Map<string, Set<(body: unknown, key: string) => void>>()
  const missedListeners = new Set<(key: string | null) => void>()
  let closed = false

  // ---- sending ----
  const queue: Queued[] = []
  const perKey = new Map<string, number>()
  let queuedBytes = 0
  let lost: Set<string> | 'all' | null = null
  let count = 0
  let pumping: Promise<void> | null = null
  let failing = false
  let lastPrune = 0

  function markLost(key: string) {
    if (lost === null)
      logger.warn('hub link: messages for the other hubs dropped (queue full); their streams of this account start anew', { account: key || null })
    if (key === '') lost = 'all'
    else if (lost !== 'all') {
      lost ??= new Set()
      lost.add(key)
      if (lost.size > MAX_LOST_KEYS) lost = 'all'
    }
  }

  function take(n: number) {
    for (const item of queue.splice(0, n)) {
      queuedBytes -= item.bytes
      const left = (perKey.get(item.key) ?? 0) - item.bytes
      if (left > 0) perKey.set(item.key, left)
      else perKey.delete(item.key)
    }
  }

  /** writes a payload too large for NOTIFY to hub_messages, and prunes rows nobody will read */
  async function stored(text: string): Promise<number> {
    const now = clock.now()
    const [row] = await sql`INSERT INTO hub_messages (created_at, body) VALUES (${now}, ${text}) RETURNING id`
    if (now - lastPrune >= 60_000) {
      lastPrune = now
      await sql`DELETE FROM hub_messages WHERE created_at < ${now - KEEP_ROWS_MS}`
    }
    return Number(row.id)
  }

  async function pump() {
    while (!closed && (queue.length > 0 || lost !== null)) {
      const n = ++count
      const envelope = head(origin, n, lost === null ? null : lostJson(lost === 'all' ? 'all' : [...lost]))
      lost = null
      const batch = pack(queue, envelope, limit)
      take(batch.taken)
      try {
        await sql.notify(channel, batch.fits ? batch.text : referenceText(origin, n, await stored(batch.text)))
        if (failing) logger.info('hub link: sending to the other hubs again')
        failing = false
      } catch (err) {
        // the receivers see this payload's number skipped and start their streams anew
        if (!failing) logger.warn('hub link: could not send to the other hubs; they will re-sync', { error: (err as Error).message })
        failing = true
      }
    }
  }

  function startPump() {
    if (pumping || closed) return
    pumping = pump().finally(() => {
      pumping = null
      if (queue.length > 0 || lost !== null) startPump()
    })
  }

  // ---- receiving ----
  const lastHeard = new Map<string, number>()
  let reading: Promise<void> | null = null

  function missed(key: string | null) {
    for (const listener of missedListeners) {
      try {
        listener(key)
      } catch (err) {
        logger.error('hub link: a listener failed', { error: (err as Error).message })
      }
    }
  }

  function deliver(p: Payload) {
    if (p.lost === 'all') missed(null)
    else for (const key of p.lost ?? []) missed(key)
    for (const item of p.items) {
      for (const listener of topics.get(item.topic) ?? []) {
        try {
          listener(item.body, item.key)
        } catch (err) {
          logger.error('hub link: a listener failed', { topic: item.topic, error: (err as Error).message })
        }
      }
    }
  }

  async function readReference(ref: number) {
    try {
      const [row] = await sql`SELECT body FROM hub_messages WHERE id = ${ref}`
      const p = row ? parsePayload(String(row.body)) : null
      if (p) return deliver(p)
      logger.warn('hub link: a message from another hub was gone before it was read', { id: ref })
    } catch (err) {
      logger.warn('hub link: could not read a message from another hub', { id: ref, error: (err as Error).message })
    }
    missed(null)
  }

  function heard(text: string) {
    const p = parsePayload(text)
    if (!p || p.origin === origin || closed) return
    const before = lastHeard.get(p.origin)
    lastHeard.delete(p.origin)
    lastHeard.set(p.origin, p.n)
    if (lastHeard.size > MAX_ORIGINS) lastHeard.delete(lastHeard.keys().next().value as string)
    if (before !== undefined && p.n !== before + 1) {
      logger.warn('hub link: messages from another hub were missed; live streams start anew', { hub: p.origin, missed: p.n - before - 1 })
      missed(null)
    }
    // a payload by reference is read before the next one is delivered: each hub's order holds
    if (p.ref === undefined && !reading) return deliver(p)
    const ref = p.ref
    const next = (reading ?? Promise.resolve()).then(() => (ref === undefined ? deliver(p) : readReference(ref)))
    reading = next
    void next.finally(() => {
      if (reading === next) reading = null
    })
  }

  // ---- listening ----
  let listens = 0
  let interrupted = false
  let retryMs = RETRY_MIN_MS
  let cancelRetry = () => {}
  let subscription: SQL.ListenSubscription | null = null

  function listening() {
    listens++
    if (listens === 1 && !interrupted) return logger.info('hub link: listening to the other hubs', { channel, hub: origin })
    // Bun.SQL listened again after its connection dropped: what came meanwhile is lost
    lastHeard.clear()
    logger.warn(
      'hub link: listening again after the connection to PostgreSQL dropped; what other hubs sent meanwhile was missed, so live streams start anew and revocations are re-read',
      {
        channel,
      },
    )
    missed(null)
  }

  async function listen() {
    try {
      const sub = await sql.listen(channel, heard, listening)
      if (closed) return void (await sub.unlisten())
      subscription = sub
      retryMs = RETRY_MIN_MS
    } catch (err) {
      if (closed) return
      interrupted = true
      logger.warn('hub link: cannot listen to the other hubs; trying again', { error: (err as Error).message, retry_in_ms: retryMs })
      cancelRetry = timers.after(retryMs, () => void listen())
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS)
    }
  }
  await listen()

  return {
    origin,
    send(topic, key, json) {
      if (closed) return
      const item = itemOf(topic, key, json)
      const mine = perKey.get(key) ?? 0
      if (item.bytes > MAX_MESSAGE_BYTES || queuedBytes + item.bytes > QUEUE_BYTES || mine + item.bytes > KEY_BYTES) markLost(key)
      else {
        queue.push(item)
        perKey.set(key, mine + item.bytes)
        queuedBytes += item.bytes
      }
      startPump()
    },
    on(topic, listener) {
      const set = topics.get(topic) ?? new Set()
      topics.set(topic, set)
      set.add(listener)
      return () => void set.delete(listener)
    },
    onMissed(listener) {
      missedListeners.add(listener)
      return () => void missedListeners.delete(listener)
    },
    async flushed() {
      while (pumping) await pumping
      while (reading) await reading
    },
    async close() {
      closed = true
      cancelRetry()
      await subscription?.unlisten()
      subscription = null
    },
  }
}
