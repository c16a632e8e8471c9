import type { CredentialFailure, MemberRole, Principal } from './principal'

/** Per-request facts gathered on admission and read by later hooks and handlers. */
export class RequestState {
  principal: Principal | null = null
  failure: CredentialFailure | null = null
  /** the caller's role in its client, once a user guard has looked it up */
  memberRole?: MemberRole
  /** the raw body text, kept for signature checks (payment webhooks) */
  rawBody?: string
  /** presented VIGIL_METRICS_TOKEN on GET /metrics: a Prometheus server, not a tenant */
  scraper = false
  /** when admission began, on the request observer's monotonic clock (seconds) */
  admittedAt = 0
  #ip: string | undefined

  constructor(
    readonly id: string,
    readonly startedAt: number,
    private readonly resolveIp: () => string,
  ) {}

  /** The client address, worked out on first use (see pipeline.ts). */
  get ip(): string {
    return (this.#ip ??= this.resolveIp())
  }
}

const states = new WeakMap<Request, RequestState>()

export const setRequestState = (request: Request, state: RequestState) => states.set(request, state)
export const requestState = (request: Request): RequestState | undefined => states.get(request)
export const rawBodyOf = (request: Request): string | undefined => states.get(request)?.rawBody

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

/** Keep a caller's (or proxy's) request id when it is harmless to echo and log; else make one. */
export function requestIdFrom(header: string | null): string {
  return header && SAFE_REQUEST_ID.test(header) ? header : crypto.randomUUID()
}

/** The client address: the socket's, or with a trusted proxy the first X-Forwarded-For hop. */
export function clientIp(forwardedFor: string | null, socketIp: string | undefined, trustProxy: boolean): string {
  if (trustProxy && forwardedFor) {
    const first = forwardedFor.split(',')[0]?.trim()
    if (first) return first
  }
  return socketIp ?? 'unknown'
}
