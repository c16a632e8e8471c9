import type { Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/logger'
import type { OutboundDeps } from '../../lib/outbound/outbound.fetch'
import type { OutboundPolicy } from '../../lib/outbound/outbound.policy'
import { openSecret } from '../../lib/secret-box'
import type { Timers } from '../../lib/timers'
import { VERSION } from '../../version'
import { sendHttp, type HttpResult } from '../deliveries/deliveries.http'
import type { SlotCaps, Slots } from '../deliveries/deliveries.slots'
import { type Claims, createDeliveryWorker } from '../deliveries/deliveries.worker'
import type { AttemptOutcome, ClaimedDelivery, OutboxStore } from './webhooks.outbox'
import { retryDelay } from './webhooks.schedule'
import { secretKeyOf, signedHeaders } from './webhooks.signer'

/** what the delivery log keeps of an answer */
export const EXCERPT_BYTES = 1024

export interface WorkerDeps {
  outbox: OutboxStore
  /** the engine's claim (deliveries.claim.ts sqliteClaims, deliveries.due.pg.ts pgClaims) */
  claims: (slots: Slots, caps: SlotCaps) => Claims<WebhookJob>
  /** at start, the rows a stopped process was sending go back to the queue: one hub on SQLite only (on PostgreSQL the leases do it) */
  unclaimAtStart: boolean
  clock: Clock
  timers: Timers
  logger: Logger
  outbound: OutboundDeps
  secretKey: () => Uint8Array
  /** where this client's endpoints may be */
  policyFor: (clientId: string) => OutboundPolicy
  /** the operator's own client is told more about a refused address (lib/outbound/outbound.words) */
  isOperator: (clientId: string) => boolean
  /** turns an endpoint off (410, or failing for days), holds its deliveries and tells its owners */
  disable: (clientId: string, endpointId: string, reason: 'gone' | 'failing') => Promise<void>
  /** in flight at once: in all, per account, per endpoint */
  caps: SlotCaps
  timeoutMs: number
  /** an endpoint whose every attempt failed for this long is disabled */
  disableAfterMs: number
  random?: () => number
}

const USER_AGENT = `Vigil-Webhooks/${VERSION}`

/** A claimed delivery: its row as claimed (next_attempt_at is what the result is written with), whose and where. */
export type WebhookJob = ClaimedDelivery & { account: string; destination: string }
type Job = WebhookJob

export const webhookJob = (d: ClaimedDelivery): WebhookJob => ({ ...d, account: d.client_id, destination: d.endpoint_id })

/**
 * The webhook outbox on the delivery core (deliveries/deliveries.worker): webhooks bring the
 * signing (Standard Webhooks, both secrets during a rotation) and what a result means for the
 * delivery and its endpoint (410 disables it; so do days of failures).
 */
export function createWebhookWorker(deps: WorkerDeps) {
  const random = deps.random ?? Math.random
  /** sealed secret → HMAC key: opening it is AES-GCM and a key derivation per call otherwise */
  const keys = new Map<string, Uint8Array | null>()

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

  async function send(d: Job, stop: AbortSignal): Promise<HttpResult> {
    const now = deps.clock.now()
    const current = keyOf(d.secret_enc, d.client_id)
    const previous = d.previous_secret_enc && (d.previous_expires_at ?? 0) > now ? keyOf(d.previous_secret_enc, d.client_id) : null
    if (!current)
      return {
        kind: 'unsent',
        error: "the signing secret cannot be read (the server's secret key changed): rotate it",
        detail: 'secret',
        refused: false,
        durationMs: 0,
      }
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signedHeaders(previous ? [current, previous] : [current], d.message_id, Math.floor(now / 1000), d.payload),
    }
    return sendHttp(
      { outbound: deps.outbound, timeoutMs: deps.timeoutMs, now: () => deps.clock.now() },
      {
        url: d.url,
        method: 'POST',
        headers,
        body: d.payload,
        policy: deps.policyFor(d.client_id),
        audience: deps.isOperator(d.client_id) ? 'operator' : 'tenant',
        excerptBytes: EXCERPT_BYTES,
        stop,
      },
    )
  }

  /** writes one finished attempt (one store call); disables its endpoint when it must */
  async function complete(d: Job, r: HttpResult, at: number): Promise<undefined> {
    if (r.kind === 'aborted') return
    const number = d.attempts + 1
    const statusCode = r.kind === 'answer' || r.kind === 'redirect' ? r.status : null
    const ok = r.kind === 'answer' && r.status >= 200 && r.status < 300
    const gone = r.kind === 'answer' && r.status === 410
    const attempt = {
      id: newId('wha'),
      delivery_id: d.id,
      attempt: number,
      at,
      status_code: statusCode,
      duration_ms: r.durationMs,
      error: r.kind === 'answer' ? (ok ? null : `the receiver answered HTTP ${r.status}`) : r.error,
      response_excerpt: r.kind === 'answer' ? r.excerpt : null,
    }
    let outcome: AttemptOutcome
    if (ok || gone) outcome = { status: ok ? 'succeeded' : 'failed', nextAttemptAt: at, attempt }
    else {
      const delay = retryDelay(number - d.schedule_from, random(), r.kind === 'answer' ? r.retryAfterMs : null)
      outcome = { status: delay === null ? 'failed' : 'pending', nextAttemptAt: at + (delay ?? 0), attempt }
    }
    // a success always clears the mark (a no-op when there is none): another delivery to this
    // endpoint may have failed while this one was in flight, after this one was claimed
    const failure = ok ? 'clear' : gone ? 'none' : 'mark'
    const written = await deps.outbox.record(d.id, d.next_attempt_at, outcome, failure)
    // deleted with its endpoint while in flight, or taken by another worker: nothing to record, and nothing to disable
    if (!written || ok) return
    const reason = gone ? 'gone' : at - (written.failingSince ?? at) >= deps.disableAfterMs ? 'failing' : null
    if (!reason) return
    try {
      await deps.disable(d.client_id, d.endpoint_id, reason)
    } catch (err) {
      // recorded all the same; the next failed attempt reaches the verdict again
      deps.logger.error('webhook endpoint not disabled', { endpoint_id: d.endpoint_id, reason, error: (err as Error).message })
    }
  }

  return createDeliveryWorker<Job, HttpResult>({
    name: 'webhook',
    queue: {
      claims: deps.claims,
      complete,
      nextDueAt: () => deps.outbox.nextDueAt(),
      releaseClaims: async () => {
        if (deps.unclaimAtStart) await deps.outbox.releaseClaims()
      },
    },
    send,
    caps: deps.caps,
    clock: deps.clock,
    timers: deps.timers,
    logger: deps.logger,
  })
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>
