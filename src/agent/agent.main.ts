import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import type { Timers } from '../lib/timers'
import { openQueue, type QueueLimits } from './agent.queue'
import { BULK_MAX_BYTES, BULK_MAX_ITEMS, createBackoff, sendBulk, sendSample, type Fetch, type HubTarget } from './agent.sender'
import type { QueuedSample } from './agent.queue'
import { ensureDevice } from './agent.device'
import type { Sampler } from './agent.sample'
import { readIdentity, type Identity } from './readers/identity'

export interface AgentOptions extends HubTarget {
  intervalMs: number
  stateDir: string
  /** queued samples sent per tick at most, after the live one */
  replayPerTick?: number
  /** and for at most this share of the interval, so the next live sample is never late */
  replayShare?: number
  queueLimits?: QueueLimits
}

export interface AgentDeps {
  sampler: Sampler
  clock: Clock
  timers: Timers
  fetch: Fetch
  log: Logger
  /** for the replay time budget */
  monotonic?: () => number
  random?: () => number
  identity?: Identity
}

/**
 * The collector loop. Every interval: one live sample, sent first; when the hub does not take
 * it (away, 5xx, 429), it joins the on-disk queue and sends wait for a jittered backoff. After
 * a live sample is taken, queued ones follow oldest first, a bounded number per tick and
 * within part of the interval, so the replay after a long outage never delays live samples.
 * A sample leaves the queue only once the hub has answered for it.
 */
export function startAgent(opts: AgentOptions, deps: AgentDeps) {
  const { clock, log } = deps
  const monotonic = deps.monotonic ?? (() => performance.now())
  const queue = openQueue(opts.stateDir, { clock, log, limits: opts.queueLimits })
  const backoff = createBackoff({ random: deps.random, capMs: Math.max(opts.intervalMs * 30, 60_000) })
  const identity = deps.identity ?? readIdentity('/')
  const replayPerTick = opts.replayPerTick ?? 10_000
  const replayBudgetMs = opts.intervalMs * (opts.replayShare ?? 0.8)
  /** the hub's latest Retry-After: the next backoff waits at least that long */
  let retryAfterMs = 0
  const sendDeps = { fetch: deps.fetch, log, retryAfter: (ms: number) => (retryAfterMs = ms) }
  const send = (deviceId: string, body: string) => {
    retryAfterMs = 0
    return sendSample(opts, deviceId, body, sendDeps)
  }
  const failed = () => backoff.failed(clock.now(), retryAfterMs)
  let deviceId: string | null = null
  let stopped = false
  let cancel: (() => void) | null = null
  let running: Promise<void> = Promise.resolve()

  const { count } = queue.size()
  if (count) log.info('agent: samples waiting from an earlier run', { queued: count })

  /**
   * Queued samples, oldest first, in bulk requests (up to 500 samples or 900 KB each): one
   * request and one queue commit per bulk instead of per sample. What the hub answered for
   * (stored, already held, or refused for good) leaves the queue; when it refuses the request
   * as a whole (an older hub without /bulk, a body it will not take), the same samples go one
   * by one, so a bad one is dropped alone.
   */
  async function replay(id: string): Promise<number> {
    const started = monotonic()
    const late = () => stopped || monotonic() - started > replayBudgetMs
    let sent = 0
    while (sent < replayPerTick && !late()) {
      const batch = fitBulk(queue.oldest(Math.min(BULK_MAX_ITEMS, replayPerTick - sent)))
      if (!batch.length) break
      retryAfterMs = 0
      const outcome = await sendBulk(
        opts,
        id,
        batch.map((b) => b.body),
        sendDeps,
      )
      if (outcome === 'retry') {
        failed()
        return sent
      }
      if (outcome === 'sent') {
        queue.removeThrough(batch.at(-1)!.id)
        sent += batch.length
        continue
      }
      for (const item of batch) {
        if (late()) return sent
        if ((await send(id, item.body)) === 'retry') {
          failed()
          return sent
        }
        queue.removeThrough(item.id) // sent, or refused for good (logged by the sender)
        sent++
      }
    }
    return sent
  }

  async function deliver(body: string, recordedAt: number): Promise<void> {
    if (!backoff.ready(clock.now())) return queue.push(body, recordedAt)
    deviceId ??= await ensureDevice(opts, identity, opts.stateDir, deps)
    const outcome = deviceId ? await send(deviceId, body) : 'retry'
    if (outcome === 'retry') {
      queue.push(body, recordedAt)
      const wait = failed()
      if (backoff.failures === 1) log.warn('agent: the hub did not take a sample; queueing until it does', { retry_in_ms: wait })
      return
    }
    if (backoff.failures > 0) log.info('agent: the hub is back', { queued: queue.size().count })
    backoff.succeeded()
    const replayed = await replay(deviceId!)
    if (replayed) log.info('agent: replayed queued samples', { sent: replayed, left: queue.size().count })
  }

  async function tick(): Promise<void> {
    const started = monotonic()
    try {
      const sample = await deps.sampler.sample()
      await deliver(JSON.stringify(sample), Date.parse(sample.recorded_at))
    } catch (err) {
      log.error('agent: tick failed', { error: (err as Error).message })
    }
    if (!stopped) schedule(Math.max(0, opts.intervalMs - (monotonic() - started)))
  }

  function schedule(ms: number) {
    cancel = deps.timers.after(ms, () => {
      cancel = null
      running = tick()
    })
  }

  deps.sampler.prime()
  schedule(opts.intervalMs)

  return {
    /** resolves when the tick in progress (if any) is done */
    settled: () => running,
    queued: () => queue.size(),
    deviceId: () => deviceId,
    /** stops after the tick in progress; the queue is closed and kept on disk */
    async stop(): Promise<void> {
      stopped = true
      cancel?.()
      await running
      queue.close()
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

export type Agent = ReturnType<typeof startAgent>
