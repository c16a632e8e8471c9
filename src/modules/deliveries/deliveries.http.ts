import { readHead } from '../../lib/capped-read'
import { OutboundRedirect, OutboundRefused, OutboundUnreachable, safeFetch, type OutboundDeps } from '../../lib/outbound/outbound.fetch'
import type { OutboundPolicy } from '../../lib/outbound/outbound.policy'
import { unsentText, type Audience } from '../../lib/outbound/outbound.words'
import { parseRetryAfter } from './deliveries.schedule'

export interface HttpSendDeps {
  outbound: OutboundDeps
  /** the whole exchange, connection to the last byte read */
  timeoutMs: number
  /** wall time, for a Retry-After given as a date */
  now: () => number
}

export interface HttpSend {
  url: string
  method: 'POST'
  headers: Record<string, string>
  body: string
  policy: OutboundPolicy
  /** who reads the delivery log: what a refusal may say (lib/outbound/outbound.words) */
  audience: Audience
  /** how much of the answer is read; the rest is never downloaded */
  excerptBytes: number
  /** aborts the attempt when the service stops */
  stop?: AbortSignal
}

/** What one POST came to: an answer (status, excerpt, Retry-After) or why none came. */
export type HttpResult =
  | { kind: 'answer'; status: number; excerpt: string | null; retryAfterMs: number | null; durationMs: number }
  | { kind: 'redirect'; status: number; error: string; durationMs: number }
  /** refused by the policy or unreachable: one kind, worded by the audience; `detail` is for the server log */
  | { kind: 'unsent'; error: string; detail: string; refused: boolean; durationMs: number }
  | { kind: 'aborted'; durationMs: number }

/**
 * One POST through the outbound policy, for both queues: every resolved address checked and the
 * connection pinned to one, no redirects, one deadline for the whole exchange, and at most
 * `excerptBytes` of the answer read (lib/capped-read).
 */
export async function sendHttp(deps: HttpSendDeps, req: HttpSend): Promise<HttpResult> {
  const started = performance.now()
  const took = () => Math.round(performance.now() - started)
  const deadline = AbortSignal.timeout(deps.timeoutMs)
  const signal = req.stop ? AbortSignal.any([deadline, req.stop]) : deadline
  let res: Response
  try {
    res = await safeFetch(deps.outbound, req.url, { method: req.method, headers: req.headers, body: req.body, signal }, req.policy)
  } catch (err) {
    if (req.stop?.aborted) return { kind: 'aborted', durationMs: took() }
    if (err instanceof OutboundRedirect) return { kind: 'redirect', status: err.status, error: err.message, durationMs: took() }
    if (err instanceof OutboundRefused) {
      const error = unsentText(req.audience, deps.timeoutMs, { host: err.host, refusal: err.refusal })
      return { kind: 'unsent', error, detail: `${err.stage}: ${err.refusal}`, refused: true, durationMs: took() }
    }
    const detail = err instanceof OutboundUnreachable ? err.detail : String((err as Error)?.message ?? err).slice(0, 200)
    return { kind: 'unsent', error: unsentText(req.audience, deps.timeoutMs, null), detail, refused: false, durationMs: took() }
  }
  let excerpt: string | null = null
  try {
    excerpt = await readHead(res.body, req.excerptBytes)
  } catch {
    // the status is the answer; a body cut short (deadline, reset) only loses the excerpt
  }
  if (req.stop?.aborted) return { kind: 'aborted', durationMs: took() }
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), deps.now())
  return { kind: 'answer', status: res.status, excerpt, retryAfterMs, durationMs: took() }
}
