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

/** Sends one sample body to POST /v1/metrics/batch; never throws. */
export async function sendSample(
  target: HubTarget,
  deviceId: string | null,
  body: string,
  deps: { fetch: Fetch; log: Logger; timeoutMs?: number },
): Promise<Outcome> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': target.key }
  if (deviceId) headers['x-device-id'] = deviceId
  let res: Response
  try {
    res = await deps.fetch(`${target.hub}/v1/metrics/batch`, { method: 'POST', headers, body, signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000) })
  } catch (err) {
    deps.log.debug('agent: hub unreachable', { error: (err as Error).message })
    return 'retry'
  }
  const outcome = classify(res.status)
  if (outcome === 'dropped') {
    const detail = (await res.text().catch(() => '')).slice(0, 500)
    deps.log.warn('agent: the hub refused a sample; dropped', { status: res.status, detail })
  } else {
    await res.body?.cancel().catch(() => {})
    if (outcome === 'retry') deps.log.debug('agent: hub answered, will retry', { status: res.status })
  }
  return outcome
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
    failed(now: number): number {
      failures++
      const wait = Math.floor(random() * Math.min(cap, base * 2 ** (failures - 1)))
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
