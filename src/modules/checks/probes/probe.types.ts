import type { CheckKind, CheckSettings, ProbeResult } from '../checks.model'

/** What a probe runs: the same definition on the hub and on an agent (GET /v1/agent/checks). */
export interface ProbeDefinition {
  kind: CheckKind
  settings: CheckSettings
  timeout_ms: number
}

/**
 * What differs between the hub and an agent. The hub's `addresses` and `fetch` follow the
 * outbound policy (a refused target fails the attempt); an agent's reach its own network.
 */
export interface ProbeDeps {
  /** the addresses to connect to for a host (an IP literal answers itself); throws ProbeRefused or a lookup error */
  addresses(host: string): Promise<string[]>
  /** fetch that never follows redirects itself (the HTTP probe decides) */
  fetch(url: string, init: BunFetchRequestInit): Promise<Response>
  /** a monotonic clock in ms for durations */
  elapsed(): number
  /** wall time in ms (a certificate's expiry is compared with it) */
  now(): number
}

/** The target is one this place may not call; the message says why without more than the settings say. */
export class ProbeRefused extends Error {}

export type Probe = (def: ProbeDefinition, deps: ProbeDeps) => Promise<ProbeResult>

export const failed = (error: string, extra: Partial<ProbeResult> = {}): ProbeResult => ({
  ok: false,
  response_ms: null,
  status_code: null,
  error: error.slice(0, 500),
  cert_expires_at: null,
  detail: null,
  ...extra,
})

export const timeoutText = (ms: number) => `timeout after ${ms} ms`

/** A network error as a short sentence: the code a person can search for, never a stack. */
export function networkError(err: unknown, timeoutMs: number): string {
  if (err instanceof ProbeRefused) return err.message
  const e = err as { code?: string; name?: string; message?: string }
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.code === 'ETIMEDOUT') return timeoutText(timeoutMs)
  const code = e?.code ?? ''
  if (code === 'ECONNREFUSED' || code === 'ConnectionRefused') return 'connection refused'
  if (code === 'ECONNRESET' || code === 'ConnectionClosed') return 'connection reset'
  if (code === 'ENOTFOUND' || code === 'DNSException' || code === 'EAI_NONAME') return 'name not resolved'
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable'
  if (/certificate|self.signed|CERT|UNABLE_TO_VERIFY/i.test(`${code} ${e?.message ?? ''}`))
    return `TLS certificate not trusted (${code || 'verification failed'})`
  return (code ? `${code}: ` : '') + String(e?.message ?? err).slice(0, 200)
}

/** Runs `fn` with a deadline; past it the attempt fails as a timeout (the socket is closed by `cancel`). */
export function withDeadline<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctrl = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctrl.abort()
      reject(Object.assign(new Error(timeoutText(ms)), { name: 'TimeoutError' }))
    }, ms)
  })
  return Promise.race([fn(ctrl.signal), deadline]).finally(() => clearTimeout(timer))
}
