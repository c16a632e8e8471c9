import type { Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import type { OutboundDeps } from '../../lib/outbound/outbound.fetch'
import type { OutboundPolicy } from '../../lib/outbound/outbound.policy'
import { openSecret } from '../../lib/secret-box'
import type { Timers } from '../../lib/timers'
import { VERSION } from '../../version'
import type { AttemptOutcome, ClaimedDelivery, OutboxStore } from './webhooks.outbox'
import { parseRetryAfter, retryDelay } from './webhooks.schedule'
import { sendOnce, type SendResult } from './webhooks.send'
import { secretKeyOf, signedHeaders } from './webhooks.signer'
import type { EndpointsStore } from './webhooks.store'

export interface WorkerDeps {
  outbox: OutboxStore
  endpoints: Pick<EndpointsStore, 'markFailing' | 'markHealthy'>
  /** runs `fn` in one SQLite transaction: a tick's results and its next claims commit together */
  transaction: <T>(fn: () => T) => T
  clock: Clock
  timers: Timers
  logger: Logger
  outbound: OutboundDeps
  secretKey: () => Uint8Array
  /** where this client's endpoints may be */
  policyFor: (clientId: string) => OutboundPolicy
  /** turns an endpoint off (410, or failing for days), holds its deliveries and tells its owners */
  disable: (clientId: string, endpointId: string, reason: 'gone' | 'failing') => void
  /** deliveries in flight at once, and per endpoint (a slow receiver cannot take every slot) */
  concurrency: number
  perEndpoint: number
  timeoutMs: number
  /** an endpoint whose every attempt failed for this long is disabled */
  disableAfterMs: number
  random?: () => number
}

/** the longest the worker sleeps without looking at the outbox (a clock step, a resend) */
const MAX_SLEEP_MS = 60_000
const USER_AGENT = `Vigil-Webhooks/${VERSION}`
/** while busy, ticks are at least this far apart (ms) */
const BATCH_MS = 2

interface Finished {
  d: ClaimedDelivery
  r: SendResult
  at: number
}

/**
 * Sends what the outbox holds. A tick (at once when rows are written, after attempts finish,
 * or by a timer at the next due retry) records the attempts finished since the last tick and
 * claims due rows up to the concurrency, in one transaction: one commit per tick, not several
 * per delivery. Each claimed row is signed and sent through the outbound policy. At start,
 * what a killed process had claimed is pending again: delivery is at least once (an attempt
 * finished but not yet recorded goes again too), and receivers deduplicate on webhook-id.
 */
export function createDeliveryWorker(deps: WorkerDeps) {
  const random = deps.random ?? Math.random
  let running = false
  let scheduled = false
  let inFlight = 0
  const busy = new Map<string, number>()
  const active = new Set<Promise<void>>()
  const finished: Finished[] = []
  let sleeping: { at: number; cancel: () => void } | null = null
  let stopper = new AbortController()
  /** sealed secret → HMAC key: opening it is AES-GCM and a key derivation per call otherwise */
  const keys = new Map<string, Uint8Array | null>()

  /** when the last tick ran (monotonic ms) */
  let lastTick = Number.NEGATIVE_INFINITY

  /**
   * The next tick: at once after a quiet spell (an event's first delivery waits for nothing);
   * while busy, at most every BATCH_MS, so that one commit records the attempts finished meanwhile.
   */
  function schedule() {
    if (!running || scheduled) return
    scheduled = true
    const wait = lastTick + BATCH_MS - performance.now()
    if (wait > 0) setTimeout(tick, wait)
    else setImmediate(tick)
  }

  function tick() {
    scheduled = false
    lastTick = performance.now()
    if (running) step(true)
  }

  /** records what finished, then (claiming) takes due rows and sends them */
  function step(claiming: boolean) {
    const batch = finished.splice(0)
    const now = deps.clock.now()
    const verdicts: { d: ClaimedDelivery; disable: 'gone' | 'failing' | null }[] = []
    let claimed: ClaimedDelivery[] = []
    const free = deps.concurrency - inFlight
    try {
      deps.transaction(() => {
        for (const f of batch) verdicts.push({ d: f.d, disable: record(f) })
        if (claiming && free > 0) claimed = claim(now, free)
      })
    } catch (err) {
      // the database refused (disk full, I/O): keep the results and try again shortly
      finished.unshift(...batch)
      deps.logger.error('webhook outbox not written', { error: (err as Error).message })
      if (claiming) sleepFor(1000)
      return
    }
    for (const v of verdicts) if (v.disable) deps.disable(v.d.client_id, v.d.endpoint_id, v.disable)
    for (const d of claimed) begin(d)
    if (claiming && claimed.length < free) sleepUntilDue()
  }

  function claim(now: number, free: number): ClaimedDelivery[] {
    const taken = new Map<string, number>()
    let count = 0
    let refused = 0
    // Rows are due oldest first; a run of rows for endpoints at their limit ends the scan
    // (they go out as those endpoints' attempts finish, each of which ticks again).
    return deps.outbox.claim(now, (endpointId) => {
      if (count >= free || refused >= deps.perEndpoint) return 'stop'
      const n = (busy.get(endpointId) ?? 0) + (taken.get(endpointId) ?? 0)
      if (n >= deps.perEndpoint) {
        refused++
        return 'skip'
      }
      taken.set(endpointId, (taken.get(endpointId) ?? 0) + 1)
      count++
      refused = 0
      return 'take'
    })
  }

  function sleepFor(ms: number) {
    const at = deps.clock.now() + ms
    if (sleeping && sleeping.at <= at) return
    sleeping?.cancel()
    const cancel = deps.timers.after(ms, () => {
      sleeping = null
      schedule()
    })
    sleeping = { at, cancel }
  }

  /** one timer, at the earliest pending row (or sooner if one is already set earlier) */
  function sleepUntilDue() {
    const now = deps.clock.now()
    const next = deps.outbox.nextDueAt()
    if (next === null) sleepFor(MAX_SLEEP_MS)
    else if (next > now) sleepFor(Math.min(next - now, MAX_SLEEP_MS))
    // due but not claimable (its endpoint is at its limit): each finished attempt ticks again
    else sleepFor(inFlight ? MAX_SLEEP_MS : 1000)
  }

  function begin(d: ClaimedDelivery) {
    inFlight++
    busy.set(d.endpoint_id, (busy.get(d.endpoint_id) ?? 0) + 1)
    const run = attempt(d)
      .then((r) => {
        // stopped mid-attempt: left claimed, pending again at the next start
        if (!r.aborted) finished.push({ d, r, at: deps.clock.now() })
      })
      .catch((err: Error) => deps.logger.error('webhook delivery failed unexpectedly', { delivery_id: d.id, error: err.message }))
      .finally(() => {
        inFlight--
        const n = busy.get(d.endpoint_id)! - 1
        if (n) busy.set(d.endpoint_id, n)
        else busy.delete(d.endpoint_id)
        active.delete(run)
        schedule()
      })
    active.add(run)
  }

  function keyOf(sealed: string, clientId: string): Uint8Array | null {
    let key = keys.get(sealed)
    if (key === undefined) {
      const secret = openSecret(deps.secretKey(), sealed, clientId)
      key = secret === null ? null : new Uint8Array(secretKeyOf(secret))
      if (keys.size > 10_000) keys.clear()
      keys.set(sealed, key)
    }
    return key
  }

  async function attempt(d: ClaimedDelivery): Promise<SendResult> {
    const now = deps.clock.now()
    const current = keyOf(d.secret_enc, d.client_id)
    const previous = d.previous_secret_enc && (d.previous_expires_at ?? 0) > now ? keyOf(d.previous_secret_enc, d.client_id) : null
    if (!current) {
      const error = "the signing secret cannot be read (the server's secret key changed): rotate it"
      return { statusCode: null, durationMs: 0, error, excerpt: null, retryAfter: null, aborted: false }
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signedHeaders(previous ? [current, previous] : [current], d.message_id, Math.floor(now / 1000), d.payload),
    }
    return sendOnce({ ...deps.outbound, timeoutMs: deps.timeoutMs, stop: stopper.signal }, d.url, headers, d.payload, deps.policyFor(d.client_id))
  }

  /** writes one finished attempt (inside the tick's transaction); says whether its endpoint must be disabled */
  function record({ d, r, at }: Finished): 'gone' | 'failing' | null {
    const number = d.attempts + 1
    const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300
    const gone = r.statusCode === 410
    const attemptRow = {
      id: newId('wha'),
      delivery_id: d.id,
      attempt: number,
      at,
      status_code: r.statusCode,
      duration_ms: r.durationMs,
      error: r.error ?? (ok ? null : `the receiver answered HTTP ${r.statusCode}`),
      response_excerpt: r.excerpt,
    }
    let outcome: AttemptOutcome
    if (ok || gone) {
      outcome = { status: ok ? 'succeeded' : 'failed', nextAttemptAt: at, attempt: attemptRow }
    } else {
      const delay = retryDelay(number - d.schedule_from, random(), parseRetryAfter(r.retryAfter, at))
      outcome = { status: delay === null ? 'failed' : 'pending', nextAttemptAt: at + (delay ?? 0), attempt: attemptRow }
    }
    deps.outbox.record(d.id, outcome)
    if (ok) {
      if (d.failing_since !== null) deps.endpoints.markHealthy(d.endpoint_id)
      return null
    }
    if (gone) return 'gone'
    const since = deps.endpoints.markFailing(d.endpoint_id, at)
    return at - since >= deps.disableAfterMs ? 'failing' : null
  }

  return {
    wake: schedule,
    start() {
      if (running) return
      running = true
      stopper = new AbortController()
      deps.outbox.releaseClaims()
      schedule()
    },
    /** stops claiming, aborts attempts in flight (they go again after the next start), records what finished */
    async stop() {
      running = false
      sleeping?.cancel()
      sleeping = null
      stopper.abort()
      await Promise.all(active)
      if (finished.length) step(false)
    },
    /** resolves when nothing is in flight, recorded or due and claimable (for tests) */
    async idle() {
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve))
        if (!active.size && !scheduled && !finished.length) return
        if (active.size) await Promise.all(active)
      }
    },
    inFlight: () => inFlight,
  }
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>
