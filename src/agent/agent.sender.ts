import type { Logger } from '../lib/logger'

/** What became of one sample sent to the hub. */
export type Outcome =
  /** stored (2xx) */
  | 'sent'
  /** refused for what it is (4xx): resending it would be refused again, so it is dropped */
  | 'dropped'
  /** the hub is away or overloaded (no answer, 408, 429, 5xx): keep it and retry later */
  | 'retry'
  /** the hub refuses this collector's key (401, 403): it will take nothing until someone fixes the key */
  | 'refused'
  /** the hub has no such device (404 on the ingest route): it was deleted */
  | 'gone'

export interface HubTarget {
  /** the hub's base URL, e.g. http://hub:8080 */
  hub: string
  key: string
}

export type Fetch = (input: string, init: RequestInit) => Promise<Response>

/**
 * What the hub said, for the log: its status and the `error` body's code and message (bounded),
 * or, when it could not be reached, why.
 */
export interface HubAnswer {
  status: number | null
  code?: string
  message?: string
}

/** The answer's status and the error body's code and message; never throws. */
export async function readAnswer(res: Response): Promise<HubAnswer> {
  const text = await res.text().catch(() => '')
  let code: string | undefined
  let message: string | undefined
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown }; detail?: unknown }
    if (typeof body.error?.code === 'string') code = body.error.code.slice(0, 100)
    if (typeof body.error?.message === 'string') message = body.error.message.slice(0, 300)
    else if (body.detail !== undefined) message = JSON.stringify(body.detail).slice(0, 300)
  } catch {
    if (text) message = text.slice(0, 300)
  }
  return { status: res.status, ...(code && { code }), ...(message && { message }) }
}

/**
 * How the hub's answer classifies a sample. 408, 429 and 5xx are the hub's state, not the
 * sample's. 401 and 403 are about the key (revoked, expired, short of a scope, bound to another
 * device): nothing is taken until someone acts, so the caller stops sending instead of queueing
 * what would be refused again. A 404 on the ingest route means the device is gone (deleted).
 * Every other 4xx is about this body and is dropped with a log line, never retried forever.
 */
export function classify(status: number): Outcome {
  if (status >= 200 && status < 300) return 'sent'
  if (status === 401 || status === 403) return 'refused'
  if (status === 404) return 'gone'
  if (status === 429 || status >= 500 || status === 408) return 'retry'
  if (status >= 400) return 'dropped'
  return 'retry'
}

export interface SendDeps {
  fetch: Fetch
  log: Logger
  timeoutMs?: number
  /** told the hub's Retry-After (in ms) when a 429 or 503 carries one */
  retryAfter?: (ms: number) => void
}

async function post(target: HubTarget, path: string, deviceId: string | null, body: string, deps: SendDeps): Promise<Response | string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': target.key }
  if (deviceId) headers['x-device-id'] = deviceId
  try {
    const res = await deps.fetch(`${target.hub}${path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000) })
    const after = Number(res.headers.get('retry-after'))
    if ((res.status === 429 || res.status === 503) && after > 0) deps.retryAfter?.(Math.min(after, 3600) * 1000)
    return res
  } catch (err) {
    return (err as Error).message
  }
}

/**
 * Reads an answer whose content does not matter to its end, so that its connection can carry the
 * next request, without making a stream for it (as `res.body` would).
 */
const drain = (res: Response) => res.arrayBuffer().catch(() => undefined)

/** An outcome, and for any but 'sent' what the hub answered. */
export interface Sent {
  outcome: Outcome
  answer?: HubAnswer
}

/** Sends one sample body to POST /v1/metrics/batch; never throws. */
export async function sendSample(target: HubTarget, deviceId: string | null, body: string, deps: SendDeps): Promise<Sent> {
  const res = await post(target, '/v1/metrics/batch', deviceId, body, deps)
  if (typeof res === 'string') return { outcome: 'retry', answer: { status: null, message: res } }
  const outcome = classify(res.status)
  if (outcome === 'sent') {
    await drain(res)
    return { outcome }
  }
  const answer = await readAnswer(res)
  if (outcome === 'dropped') deps.log.warn('agent: the hub refused a sample; dropped', { ...answer })
  return { outcome, answer }
}

/** Samples per bulk request and its body's size at most: the hub takes 500 items and 1 MiB. */
export const BULK_MAX_ITEMS = 500
export const BULK_MAX_BYTES = 900 * 1024

/**
 * What became of a bulk of queued samples: 'sent' (every item answered: stored, duplicate or
 * rejected for good, logged), 'retry' (the hub's state: keep them all), 'refused' (the key: keep
 * them, stop sending), or 'single' (the hub refused the request as a whole, e.g. a hub without
 * /bulk or one bad item failing the schema: send these one by one, so only a bad one is dropped).
 */
export type BulkOutcome = 'sent' | 'retry' | 'refused' | 'single'

/** Sends queued sample bodies to POST /v1/metrics/bulk as one request, spliced as they are (not re-encoded); never throws. */
export async function sendBulk(target: HubTarget, deviceId: string, bodies: string[], deps: SendDeps): Promise<{ outcome: BulkOutcome; answer?: HubAnswer }> {
  const res = await post(target, '/v1/metrics/bulk', deviceId, `{"items":[${bodies.join(',')}]}`, deps)
  if (typeof res === 'string') return { outcome: 'retry', answer: { status: null, message: res } }
  const outcome = classify(res.status)
  if (outcome === 'retry' || outcome === 'refused') return { outcome, answer: await readAnswer(res) }
  if (outcome !== 'sent') {
    await drain(res)
    deps.log.debug('agent: bulk refused as a whole; sending one by one', { status: res.status })
    return { outcome: 'single' }
  }
  const answer = (await res.json().catch(() => null)) as { rejected?: number; items?: { status: string; reason: string | null }[] } | null
  if (answer?.rejected) {
    const first = answer.items?.find((i) => i.status === 'rejected')
    deps.log.warn('agent: the hub refused queued samples; dropped', { rejected: answer.rejected, reason: first?.reason })
  }
  return { outcome: 'sent' }
}

/**
 * The longest wait between tries while the hub is away: 5 minutes, or one interval when that is
 * longer (a try needs a sample, so a shorter bound would not be reached anyway).
 */
export const backoffCapMs = (intervalMs: number) => Math.max(300_000, intervalMs)

/**
 * Exponential backoff with full jitter (a random wait between 0 and the bound): agents that lost
 * the hub at the same moment come back spread over the window instead of all at once.
 */
export function createBackoff(opts: { baseMs?: number; capMs?: number; random?: () => number } = {}) {
  const base = opts.baseMs ?? 5_000
  const cap = opts.capMs ?? 300_000
  const random = opts.random ?? Math.random
  let failures = 0
  let until = 0
  return {
    /** whether a send may be tried at `now` */
    ready: (now: number) => now >= until,
    /**
     * A failure at `now`; `atLeastMs` is the hub's Retry-After, waited in full plus up to as much
     * again at random, so agents told the same wait do not come back in the same second.
     */
    failed(now: number, atLeastMs = 0): number {
      failures++
      const bound = Math.min(cap, base * 2 ** (failures - 1))
      const wait = atLeastMs > 0 ? atLeastMs + Math.floor(random() * Math.min(atLeastMs, bound)) : Math.floor(random() * bound)
      until = now + wait
      return wait
    },
    succeeded(): void {
      failures = 0
      until = 0
    },
    get failures() {
      return failures
    },
  }
}

export type Backoff = ReturnType<typeof createBackoff>
