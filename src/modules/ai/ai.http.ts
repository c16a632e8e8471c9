import { readCapped } from '../../lib/capped-read'
import { assertSafeTarget, RefusedTarget, type Lookup } from './ai.ssrf'

/** The largest provider answer we read; beyond it the call is aborted (a misbehaving server cannot fill memory). */
export const MAX_RESPONSE_BYTES = 256 * 1024

export type CallFailure = 'timeout' | 'too_large' | 'refused' | 'network_error' | 'provider_error' | 'invalid_output'

/** A failed provider call, with a message safe to store and show (the API key is scrubbed by the caller). */
export class ProviderCallError extends Error {
  constructor(
    readonly status: CallFailure,
    message: string,
  ) {
    super(message)
  }
}

export interface GuardedFetchDeps {
  fetch: typeof fetch
  lookup: Lookup
  timeoutMs: number
  maxBytes?: number
}

/**
 * POSTs JSON to a provider with the guards every language-model call needs: the target is
 * re-checked after DNS resolution, redirects are refused (a 3xx could point at metadata),
 * the whole call has a deadline, and the body is read only up to a cap.
 * Returns the HTTP status and the parsed JSON (or null when the body is not JSON).
 */
export async function postJson(deps: GuardedFetchDeps, url: string, headers: Record<string, string>, body: unknown) {
  const target = new URL(url)
  try {
    await assertSafeTarget(target, deps.lookup)
  } catch (err) {
    if (err instanceof RefusedTarget) throw new ProviderCallError('refused', err.message)
    throw new ProviderCallError('network_error', `cannot resolve ${target.hostname}`)
  }
  const signal = AbortSignal.timeout(deps.timeoutMs)
  let res: Response
  try {
    res = await deps.fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal,
    })
  } catch (err) {
    throw failureOf(err, signal, deps.timeoutMs)
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => {})
    throw new ProviderCallError('provider_error', `the provider answered with a redirect (${res.status}); redirects are not followed`)
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

function failureOf(err: unknown, signal: AbortSignal, timeoutMs: number): ProviderCallError {
  if (signal.aborted || (err as Error)?.name === 'TimeoutError') {
    return new ProviderCallError('timeout', `the provider did not answer within ${timeoutMs} ms`)
  }
  return new ProviderCallError('network_error', `cannot reach the provider: ${(err as Error)?.message ?? String(err)}`)
}

async function readAnswer(res: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => new ProviderCallError('too_large', `the provider's answer is larger than ${maxBytes} bytes`)
  if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
    await res.body?.cancel().catch(() => {})
    throw tooLarge()
  }
  return readCapped(res.body, maxBytes, tooLarge)
}
