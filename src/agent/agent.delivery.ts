import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import { ensureDevice, forgetDevice } from './agent.device'
import type { Queue } from './agent.queue'
import type { QueuedSample } from './agent.queue-files'
import type { Identity } from './readers/identity'
import {
  BULK_MAX_BYTES,
  BULK_MAX_ITEMS,
  backoffCapMs,
  createBackoff,
  type Fetch,
  type HubAnswer,
  type HubTarget,
  type Outcome,
  sendBulk,
  sendSample,
} from './agent.sender'

/** How often a collector whose key the hub refuses asks again, in case the key is restored. */
export const REFUSED_RECHECK_MS = 3_600_000

export interface DeliveryOptions extends HubTarget {
  intervalMs: number
  stateDir: string
  /** queued samples sent after each live one at most */
  replayPerTick?: number
  /** and for at most this share of the interval */
  replayShare?: number
}

export interface DeliveryDeps {
  queue: Queue
  clock: Clock
  fetch: Fetch
  log: Logger
  identity: Identity
  monotonic: () => number
  random?: () => number
}

interface Sample {
  body: string
  recordedAt: number
}

/**
 * The sending side of the collector, apart from sampling so that a slow hub never delays a
 * sample. A sample offered while a request is in flight waits in memory (at most the request's
 * 10 s timeout's worth) and follows it: the newest is sent live, the older ones join the queue
 * and go in bulk. When the hub does not take a sample (away, 5xx, 429) it is queued on disk and
 * sends pause for a jittered backoff; after a live sample is taken, queued ones follow, oldest
 * first, in bulk, a bounded number and time per live sample, and a fresher sample goes first.
 *
 * The hub's refusals are told apart from outages: a 404 means the device was deleted, so the
 * machine registers again (a new device) and carries on; a 401 or 403 means the key was revoked
 * or lacks a right, so nothing is sent or queued (the hub would refuse it again) and the hub is
 * asked again hourly, in case the key is restored.
 */
export function createDelivery(opts: DeliveryOptions, deps: DeliveryDeps) {
  const { clock, log, queue } = deps
  const backoff = createBackoff({ random: deps.random, capMs: backoffCapMs(opts.intervalMs) })
  const replayPerTick = opts.replayPerTick ?? 10_000
  const replayBudgetMs = opts.intervalMs * (opts.replayShare ?? 0.8)
  /** the hub's latest Retry-After: the next backoff waits at least that long */
  let retryAfterMs = 0
  const sendDeps = { fetch: deps.fetch, log, retryAfter: (ms: number) => (retryAfterMs = ms) }
  let deviceId: string | null = null
  /** while the hub refuses the key: when to ask again; 0 otherwise */
  let refusedUntil = 0
  let stopped = false
  /** samples offered while a request was in flight, oldest first */
  const waiting: Sample[] = []
  let running: Promise<void> | null = null

  const failed = () => backoff.failed(clock.now(), retryAfterMs)

  /** The outage's first failure says so once, with what happened; the rest are queued quietly. */
  function outage(answer: HubAnswer | undefined): void {
    const wait = failed()
    if (backoff.failures === 1) log.warn('agent: the hub did not take a sample; queueing until it does', { ...answer, retry_in_ms: wait })
  }

  function refuse(answer: HubAnswer): void {
    const first = refusedUntil === 0
    refusedUntil = clock.now() + REFUSED_RECHECK_MS
    const why =
      answer.status === 401
        ? "the hub does not accept this collector's API key (revoked, expired or unknown): enrol the machine again or put a valid key in the key file"
        : "the hub refuses this collector's API key (a scope it lacks, a device it is not bound to, or the plan's device limit)"
    if (first) log.warn(`agent: ${why}; sending stopped, samples are not queued, asking the hub again every hour`, { ...answer })
    else log.info("agent: the hub still refuses this collector's API key; asking again in an hour", { ...answer })
  }

  /** The device to send as, registering this machine when there is none; null when it cannot be had now (handled here). */
  async function device(): Promise<string | null> {
    if (deviceId) return deviceId
    const got = await ensureDevice(opts, deps.identity, opts.stateDir, deps)
    if ('id' in got) return (deviceId = got.id)
    if ('refused' in got) refuse(got.refused)
    else outage(got.retry)
    return null
  }

  /** Sends one sample live; on a 404 registers again (once) and resends. False when the hub did not take it (handled). */
  async function sendLive(s: Sample): Promise<boolean> {
    let id = await device()
    if (!id) return false
    retryAfterMs = 0
    let sent = await sendSample(opts, id, s.body, sendDeps)
    if (sent.outcome === 'gone') {
      const before = id
      deviceGone(sent.answer)
      id = await device()
      if (!id) return false
      if (id === before) {
        // the hub registered the same device it says does not exist: the 404 is not about the device
        log.warn('agent: the hub refused a sample; dropped', { ...sent.answer })
        return true
      }
      sent = await sendSample(opts, id, s.body, sendDeps)
    }
    return handled(sent.outcome, sent.answer)
  }

  /** The hub answered 404 for the device: it was deleted. The next send registers this machine again. */
  function deviceGone(answer: HubAnswer | undefined): void {
    log.warn('agent: the hub has no device by this id (it was deleted); registering this machine again', { device_id: deviceId, ...answer })
    forgetDevice(opts.stateDir)
    deviceId = null
  }

  /** True when the sample is done with (taken, or dropped for good); else the state is updated and it must be kept. */
  function handled(outcome: Outcome, answer: HubAnswer | undefined): boolean {
    if (outcome === 'sent' || outcome === 'dropped') return true
    if (outcome === 'refused') refuse(answer!)
    else {
      if (outcome === 'gone') deviceGone(answer)
      outage(answer)
    }
    return false
  }

  /**
   * Queued samples, oldest first, in bulk requests (up to 500 samples or 900 KB each): one
   * request and one queue commit per bulk instead of per sample. What the hub answered for
   * (stored, already held, or refused for good) leaves the queue; when it refuses the request
   * as a whole (an older hub without /bulk, a body it will not take), the same samples go one
   * by one, so a bad one is dropped alone. Stops when a fresher sample waits, so it goes first.
   */
  async function replay(id: string): Promise<number> {
    const started = deps.monotonic()
    const late = () => stopped || waiting.length > 0 || deps.monotonic() - started > replayBudgetMs
    let sent = 0
    while (sent < replayPerTick && !late()) {
      const batch = fitBulk(queue.oldest(Math.min(BULK_MAX_ITEMS, replayPerTick - sent)))
      if (!batch.length) break
      retryAfterMs = 0
      const bulk = await sendBulk(
        opts,
        id,
        batch.map((b) => b.body),
        sendDeps,
      )
      if (bulk.outcome === 'sent') {
        queue.removeThrough(batch.at(-1)!.id)
        sent += batch.length
        continue
      }
      if (bulk.outcome !== 'single') {
        handled(bulk.outcome, bulk.answer)
        return sent
      }
      for (const item of batch) {
        if (late()) return sent
        const one = await sendSample(opts, id, item.body, sendDeps)
        if (!handled(one.outcome, one.answer)) return sent
        queue.removeThrough(item.id) // sent, or refused for good (logged by the sender)
        sent++
      }
    }
    return sent
  }

  /** Sends `first` live, then whatever was offered meanwhile, then queued samples; keeps what the hub did not take. */
  async function pump(first: Sample): Promise<void> {
    let live: Sample | undefined = first
    while (live) {
      const wasRefused = refusedUntil > 0
      const wasFailing = backoff.failures > 0
      if (!(await sendLive(live))) {
        if (refusedUntil === 0) queue.pushMany([live, ...waiting.splice(0)])
        waiting.length = 0 // refused: the hub would not take them either
        return
      }
      if (wasRefused) log.info("agent: the hub takes this collector's samples again", { queued: queue.size().count })
      else if (wasFailing) log.info('agent: the hub is back', { queued: queue.size().count })
      refusedUntil = 0
      backoff.succeeded()
      if (!waiting.length) {
        const replayed = await replay(deviceId!)
        if (replayed) log.info('agent: replayed queued samples', { sent: replayed, left: queue.size().count })
      }
      // the newest goes live next; the ones before it join the queue (behind everything queued so far)
      live = waiting.pop()
      if (waiting.length) queue.pushMany(waiting.splice(0))
      if (stopped && live) {
        queue.push(live.body, live.recordedAt)
        return
      }
    }
  }

  return {
    /** whether samples are wanted now: not while the hub refuses the key, until it is time to ask again */
    wanted: () => refusedUntil === 0 || clock.now() >= refusedUntil,
    /** A new sample: sent now, after the request in flight, or queued while the hub is away. */
    offer(body: string, recordedAt: number): void {
      const s = { body, recordedAt }
      if (running) {
        waiting.push(s)
        return
      }
      // the last sample of a stop waits for the next start; while the hub is away, samples wait in the queue
      if (stopped || !backoff.ready(clock.now())) {
        if (refusedUntil === 0) queue.push(body, recordedAt)
        return
      }
      running = pump(s)
        .catch((err) => log.error('agent: sending failed', { error: (err as Error).message }))
        .finally(() => {
          running = null
        })
    },
    /** resolves when nothing is being sent */
    idle: async () => {
      while (running) await running
    },
    deviceId: () => deviceId,
    /** Lets the request in flight end; whatever waits then, or is offered after, goes to the queue. */
    async stop(): Promise<void> {
      stopped = true
      while (running) await running
      if (waiting.length && refusedUntil === 0) queue.pushMany(waiting.splice(0))
    },
  }
}

/** The oldest samples that fit one bulk body (at least one: a sample too big for any request is then refused alone). */
function fitBulk(items: QueuedSample[]): QueuedSample[] {
  let bytes = 16
  let n = 0
  while (n < items.length) {
    bytes += Buffer.byteLength(items[n]!.body) + 1
    if (n > 0 && bytes > BULK_MAX_BYTES) break
    n++
  }
  return items.slice(0, n)
}

export type Delivery = ReturnType<typeof createDelivery>
