import { readCapped } from '../../lib/capped-read'
import { OutboundRedirect, OutboundRefused, OutboundUnreachable, safeFetch, type OutboundDeps } from '../../lib/outbound/outbound.fetch'
import type { OutboundPolicy } from '../../lib/outbound/outbound.policy'

/** The largest provider answer we read; beyond it the call is aborted (a misbehaving server cannot fill memory). */
export const MAX_RESPONSE_BYTES = 256 * 1024

/** 'timeout' is no longer written (a deadline is a network_error, see below); old usage rows keep it. */
export type CallFailure = 'timeout' | 'too_large' | 'refused' | 'network_error' | 'provider_error' | 'invalid_output'

/**
 * A failed provider call. `message` is safe to store and show to the tenant: it never carries
 * what the remote server said. `detail` is for the server's log only.
 */
export class ProviderCallError extends Error {
  constructor(
    readonly status: CallFailure,
    message: string,
    readonly detail?: string,
  ) {
    super(message)
  }
}

export interface GuardedFetchDeps extends OutboundDeps {
  /** where this client's provider may be */
  policy: OutboundPolicy
  timeoutMs: number
  maxBytes?: number
}

/**
 * POSTs JSON to a provider with the guards every language-model call needs: the outbound
 * policy (checked after DNS resolution, the connection pinned to the checked address), no
 * redirects, a deadline for the whole call, and the body read only up to a cap.
 * Returns the HTTP status and the parsed JSON (or null when the body is not JSON).
 */
export async function postJson(deps: GuardedFetchDeps, url: string, headers: Record<string, string>, body: unknown) {
  const signal = AbortSignal.timeout(deps.timeoutMs)
  let res: Response
  try {
    res = await safeFetch(
      deps,
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify(body),
        signal,
      },
      deps.policy,
    )
  } catch (err) {
    throw failureOf(err, signal, deps.timeoutMs)
  }
  let text: string
  try {
    text = await readAnswer(res, deps.maxBytes ?? MAX_RESPONSE_BYTES)
  } catch (err) {
    if (err instanceof ProviderCallError) throw err
    throw failureOf(err, signal, deps.timeoutMs)
  }
  let json: unknown = null
  try {
    json = JSON.parse(text)
  } catch {
    json = null
  }
  return { status: res.status, json, text }
}

/**
 * Refused, unreachable and late all read the same to the caller: telling a closed port from
 * a filtered one, or a slow server from none, would make the test call a port scanner.
 */
function failureOf(err: unknown, signal: AbortSignal, timeoutMs: number): ProviderCallError {
  if (err instanceof OutboundRefused) return new ProviderCallError('refused', `${err.message.replace(/^the URL/, 'base_url')}`, `${err.stage}: ${err.refusal}`)
  if (err instanceof OutboundRedirect)
    return new ProviderCallError('provider_error', `the provider answered with a redirect (HTTP ${err.status}); redirects are not followed`)
  const detail = err instanceof OutboundUnreachable ? err.detail : signal.aborted ? 'timeout' : String((err as Error)?.message ?? err).slice(0, 200)
  return new ProviderCallError('network_error', `could not reach the provider (the connection failed or no answer came within ${timeoutMs} ms)`, detail)
}

async function readAnswer(res: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => new ProviderCallError('too_large', `the provider's answer is larger than ${maxBytes} bytes`)
  if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
    await res.body?.cancel().catch(() => {})
    throw tooLarge()
  }
  return readCapped(res.body, maxBytes, tooLarge)
}
