import { OutboundRedirect, OutboundRefused, OutboundUnreachable, safeFetch, type OutboundDeps } from '../../lib/outbound/outbound.fetch'
import type { OutboundPolicy } from '../../lib/outbound/outbound.policy'

/** what the delivery log keeps of an answer */
export const EXCERPT_BYTES = 1024

export interface SendDeps extends OutboundDeps {
  timeoutMs: number
  /** aborts attempts in flight when the service stops (they stay claimed and go again after the restart) */
  stop?: AbortSignal
}

export interface SendResult {
  statusCode: number | null
  durationMs: number
  /** for the tenant's delivery log: never more than the caller can know (see failureText) */
  error: string | null
  excerpt: string | null
  retryAfter: string | null
  /** the service stopped during the attempt: not an answer from the receiver */
  aborted: boolean
}

/**
 * One POST of a signed payload, through the outbound policy (checked on every resolved address,
 * the connection pinned to a checked one, no redirects), with a deadline for the whole exchange
 * and at most EXCERPT_BYTES of the answer read.
 */
export async function sendOnce(deps: SendDeps, url: string, headers: Record<string, string>, body: string, policy: OutboundPolicy): Promise<SendResult> {
  const started = performance.now()
  const signal = deps.stop ? AbortSignal.any([AbortSignal.timeout(deps.timeoutMs), deps.stop]) : AbortSignal.timeout(deps.timeoutMs)
  const took = () => Math.round(performance.now() - started)
  const result = (r: Partial<SendResult>): SendResult => ({
    statusCode: null,
    error: null,
    excerpt: null,
    retryAfter: null,
    aborted: !!deps.stop?.aborted,
    durationMs: took(),
    ...r,
  })
  let res: Response
  try {
    res = await safeFetch(deps, url, { method: 'POST', headers, body, signal }, policy)
  } catch (err) {
    if (err instanceof OutboundRedirect) return result({ statusCode: err.status, error: err.message })
    return result({ error: failureText(err, deps.timeoutMs) })
  }
  let excerpt: string | null = null
  try {
    excerpt = await readExcerpt(res.body, EXCERPT_BYTES)
  } catch {
    // the status is the answer; a body cut short (deadline, reset) only loses the excerpt
  }
  return result({ statusCode: res.status, excerpt, retryAfter: res.headers.get('retry-after') })
}

/**
 * Refused, unreachable and late read alike, as for the language-model calls (docs/outbound.md):
 * telling a closed port from a filtered one would make webhooks a port scanner.
 */
function failureText(err: unknown, timeoutMs: number): string {
  if (err instanceof OutboundRefused) return err.message
  if (err instanceof OutboundUnreachable) return `could not reach the receiver (the connection failed or no answer came within ${timeoutMs / 1000} s)`
  return 'the request failed'
}

/** The first `max` bytes of a body as text; the rest is never read. */
async function readExcerpt(stream: ReadableStream<Uint8Array> | null, max: number): Promise<string | null> {
  if (!stream) return null
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  while (size < max) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
  }
  if (size >= max) await reader.cancel().catch(() => {})
  if (!size) return null
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, max))
}
