import { addressGroups, inCidr, type Cidr } from '../lib/cidr'
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
  /** whether the connection is a trusted proxy's (asked only when an answer may close it) */
  fromTrustedProxy: () => boolean = () => false
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

/** Who may speak for the client's address: VIGIL_TRUST_PROXY and VIGIL_TRUSTED_PROXIES. */
export interface ProxyTrust {
  trustProxy: boolean
  /** empty: the socket's peer alone is the proxy */
  trustedProxies: Cidr[]
}

/** an address is at most 45 characters written out; anything longer in the header is not one */
const MAX_ADDRESS = 64

/**
 * The client address: the socket's peer, or behind a trusted proxy the right-most
 * X-Forwarded-For entry that is not a trusted proxy. Each proxy appends the address it got the
 * request from (nginx's $proxy_add_x_forwarded_for), so everything left of that entry is what
 * the client itself wrote: reading from the left let a client pick a new address per request
 * and walk past every per-address limit. Without VIGIL_TRUSTED_PROXIES the peer is the one
 * proxy; with it, the peer must be in the list (else the header is ignored), and listed
 * addresses are skipped from the right.
 */
export function clientIp(forwardedFor: string | null, socketIp: string | undefined, trust: ProxyTrust): string {
  const peer = socketIp ?? 'unknown'
  if (!trust.trustProxy || !forwardedFor) return peer
  const listed = trust.trustedProxies
  const trusted = (address: string) => listedProxy(address, listed)
  if (listed.length && !trusted(peer)) return peer
  const hops = forwardedFor.split(',')
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!.trim()
    if (!hop) continue
    // a chain of trusted proxies all the way: the left-most is as near the client as it gets
    if (i > 0 && listed.length && trusted(hop)) continue
    return hop.slice(0, MAX_ADDRESS)
  }
  return peer
}

const listedProxy = (address: string, listed: Cidr[]) => {
  const groups = addressGroups(address)
  return groups !== null && listed.some((cidr) => inCidr(groups, cidr))
}

/** Whether the socket's peer is a proxy this hub trusts (VIGIL_TRUST_PROXY, and in VIGIL_TRUSTED_PROXIES when that is set). */
export function peerIsTrustedProxy(socketIp: string | undefined, trust: ProxyTrust): boolean {
  if (!trust.trustProxy || socketIp === undefined) return false
  return trust.trustedProxies.length === 0 || listedProxy(socketIp, trust.trustedProxies)
}
