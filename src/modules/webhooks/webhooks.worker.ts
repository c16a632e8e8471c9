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

/**
 * Sends what the outbox holds. Woken at once when rows are written (`wake`), and by a timer
 * at the next due retry; claims due rows up to its concurrency, signs and sends each through
 * the outbound policy, and records every attempt with its outcome. At start, what a killed
 * process had claimed is pending again: delivery is at least once, and receivers deduplicate
 * on webhook-id.
 */
export function createDeliveryWorker(deps: WorkerDeps) {
  const random = deps.random ?? Math.random
  let running = false
  let queued = false
  let inFlight = 0
  const busy = new Map<string, number>()
  const active = new Set<Promise<void>>()
  let sleeping: { at: number; cancel: () => void } | null = null
  let stopper = new AbortController()
  /** sealed secret → HMAC key: opening it is AES-GCM and a key derivation per call otherwise */
  const keys = new Map<string, Uint8Array | null>()

  function wake() {
    if (!running || queued) return
    queued = true
    queueMicrotask(() => {
      queued = false
      pump()
    })
  }

  function pump() {
    if (!running) return
    const free = deps.concurrency - inFlight
    let claimed = 0
    if (free > 0) {
      const now = deps.clock.now()
      const taken = new Map<string, number>()
      const accept = (d: ClaimedDelivery) => {
        const n = (busy.get(d.endpoint_id) ?? 0) + (taken.get(d.endpoint_id) ?? 0)
        if (claimed >= free || n >= deps.perEndpoint) return false
        taken.set(d.endpoint_id, (taken.get(d.endpoint_id) ?? 0) + 1)
        claimed++
        return true
      }
      try {
        for (const d of deps.outbox.claim(now, Math.min(free * 4, 1000), accept)) begin(d)
      } catch (err) {
        deps.logger.error('webhook outbox unreadable', { error: (err as Error).message })
      }
    }
    if (claimed < free) sleepUntilDue()
  }

  /** one timer, at the earliest pending row (or sooner if one is already set earlier) */
  function sleepUntilDue() {
    const now = deps.clock.now()
    const next = deps.outbox.nextDueAt()
    let at: number
    if (next === null) at = now + MAX_SLEEP_MS
    else if (next > now) at = Math.min(next, now + MAX_SLEEP_MS)
    // due but not claimable (its endpoint is at its limit): each completion pumps again
    else at = now + (inFlight ? MAX_SLEEP_MS : 1000)
    if (sleeping && sleeping.at <= at) return
    sleeping?.cancel()
    const cancel = deps.timers.after(Math.max(0, at - now), () => {
      sleeping = null
      pump()
    })
    sleeping = { at, cancel }
  }

  function begin(d: ClaimedDelivery) {
    inFlight++
    busy.set(d.endpoint_id, (busy.get(d.endpoint_id) ?? 0) + 1)
    const run = attempt(d)
      .catch((err: Error) => deps.logger.error('webhook delivery failed unexpectedly', { delivery_id: d.id, error: err.message }))
      .finally(() => {
        inFlight--
        const n = busy.get(d.endpoint_id)! - 1
        if (n) busy.set(d.endpoint_id, n)
        else busy.delete(d.endpoint_id)
        active.delete(run)
        pump()
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

  async function attempt(d: ClaimedDelivery) {
    const now = deps.clock.now()
    const current = keyOf(d.secret_enc, d.client_id)
    const previous = d.previous_secret_enc && (d.previous_expires_at ?? 0) > now ? keyOf(d.previous_secret_enc, d.client_id) : null
    let result: SendResult
    if (!current) {
      result = {
        statusCode: null,
        durationMs: 0,
        error: "the signing secret cannot be read (the server's secret key changed): rotate it",
        excerpt: null,
        retryAfter: null,
        aborted: false,
      }
    } else {
      const headers = {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        ...signedHeaders(previous ? [current, previous] : [current], d.message_id, Math.floor(now / 1000), d.payload),
      }
      result = await sendOnce({ ...deps.outbound, timeoutMs: deps.timeoutMs, stop: stopper.signal }, d.url, headers, d.payload, deps.policyFor(d.client_id))
    }
    // stopped mid-attempt: left claimed, pending again at the next start
    if (result.aborted) return
    record(d, result)
  }

  function record(d: ClaimedDelivery, r: SendResult) {
    const at = deps.clock.now()
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
    if (ok) return deps.endpoints.markHealthy(d.endpoint_id)
    if (gone) return deps.disable(d.client_id, d.endpoint_id, 'gone')
    const since = deps.endpoints.markFailing(d.endpoint_id, at)
    if (at - since >= deps.disableAfterMs) deps.disable(d.client_id, d.endpoint_id, 'failing')
  }

  return {
    wake,
    start() {
      if (running) return
      running = true
      stopper = new AbortController()
      deps.outbox.releaseClaims()
      wake()
    },
    /** stops claiming, aborts attempts in flight (they go again after the next start) and waits for them */
    async stop() {
      running = false
      sleeping?.cancel()
      sleeping = null
      stopper.abort()
      await Promise.all(active)
    },
    /** resolves when nothing is in flight and nothing due is left unclaimed (for tests and the bench) */
    async idle() {
      for (;;) {
        await Promise.resolve()
        if (!active.size && !queued) return
        await Promise.all(active)
      }
    },
    inFlight: () => inFlight,
  }
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>
