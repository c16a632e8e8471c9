import type { Logger } from '../lib/logger'

/** What became of one sample sent to the hub. */
export type Outcome =
  /** stored (2xx) */
  | 'sent'
  /** refused for what it is (4xx): resending it would be refused again, so it is dropped */
  | 'dropped'
  /** the hub is away, overloaded or refuses the credential for now: keep it and retry later */
  | 'retry'

export interface HubTarget {
  /** the hub's base URL, e.g. http://hub:8080 */
  hub: string
  key: string
}

export type Fetch = (input: string, init: RequestInit) => Promise<Response>

/**
 * How the hub's answer classifies a sample. 429 and 5xx are the hub's state, not the sample's.
 * 401 and 403 are about the key (revoked, or waiting for an operator to widen it): the
 * samples are kept, bounded by the queue, rather than thrown away while someone fixes it.
 * Every other 4xx is about this body and is dropped with a log line, never retried forever.
 */
export function classify(status: number): Outcome {
  if (status >= 200 && status < 300) return 'sent'
  if (status === 429 || status >= 500 || status === 401 || status === 403 || status === 408) return 'retry'
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

async function post(target: HubTarget, path: string, deviceId: string | null, body: string, deps: SendDeps): Promise<Response | null> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': target.key }
  if (deviceId) headers['x-device-id'] = deviceId
  try {
    const res = await deps.fetch(`${target.hub}${path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000) })
    const after = Number(res.headers.get('retry-after'))
    if ((res.status === 429 || res.status === 503) && after > 0) deps.retryAfter?.(Math.min(after, 3600) * 1000)
    return res
  } catch (err) {
    deps.log.debug('agent: hub unreachable', { error: (err as Error).message })
    return null
  }
}

/**
 * Reads an answer whose content does not matter to its end, so that its connection can carry the
 * next request, without making a stream for it (as `res.body` would).
 */
const drain = (res: Response) => res.arrayBuffer().catch(() => undefined)

/** Sends one sample body to POST /v1/metrics/batch; never throws. */
export async function sendSample(target: HubTarget, deviceId: string | null, body: string, deps: SendDeps): Promise<Outcome> {
  const res = await post(target, '/v1/metrics/batch', deviceId, body, deps)
  if (!res) return 'retry'
  const outcome = classify(res.status)
  if (outcome === 'dropped') {
    const detail = (await res.text().catch(() => '')).slice(0, 500)
    deps.log.warn('agent: the hub refused a sample; dropped', { status: res.status, detail })
  } else {
    await drain(res)
    if (outcome === 'retry') deps.log.debug('agent: hub answered, will retry', { status: res.status })
  }
  return outcome
}

/** Samples per bulk request and its body's size at most: the hub takes 500 items and 1 MiB. */
export const BULK_MAX_ITEMS = 500
export const BULK_MAX_BYTES = 900 * 1024

/**
 * What became of a bulk of queued samples: 'sent' (every item answered: stored, duplicate or
 * rejected for good, logged), 'retry' (the hub's state: keep them all), or 'single' (the hub
 * refused the request as a whole, e.g. a hub without /bulk or one bad item failing the schema:
 * send these one by one, so only a bad one is dropped).
 */
export type BulkOutcome = 'sent' | 'retry' | 'single'

/** Sends queued sample bodies to POST /v1/metrics/bulk as one request, spliced as they are (not re-encoded); never throws. */
export async function sendBulk(target: HubTarget, deviceId: string, bodies: string[], deps: SendDeps): Promise<BulkOutcome> {
  const res = await post(target, '/v1/metrics/bulk', deviceId, `{"items":[${bodies.join(',')}]}`, deps)
  if (!res) return 'retry'
  const outcome = classify(res.status)
  if (outcome === 'retry') {
    await drain(res)
    deps.log.debug('agent: hub answered, will retry', { status: res.status })
    return 'retry'
  }
  if (outcome === 'dropped') {
    await drain(res)
    deps.log.debug('agent: bulk refused as a whole; sending one by one', { status: res.status })
    return 'single'
  }
  const answer = (await res.json().catch(() => null)) as { rejected?: number; items?: { status: string; reason: string | null }[] } | null
  if (answer?.rejected) {
    const first = answer.items?.find((i) => i.status === 'rejected')
    deps.log.warn('agent: the hub refused queued samples; dropped', { rejected: answer.rejected, reason: first?.reason })
  }
  return 'sent'
}

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
