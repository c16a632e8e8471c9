import { classifyIp } from './outbound.address'
import { addressRefusal, describeRefusal, hostRefusal, type OutboundPolicy, type Refusal, type SelfAddresses } from './outbound.policy'

/** Every address a name resolves to. */
export type Resolver = (hostname: string) => Promise<string[]>

/** Bun's resolver, both families. */
export const systemResolver: Resolver = async (hostname) => (await Bun.dns.lookup(hostname, {})).map((r) => r.address)

export interface OutboundDeps {
  fetch: typeof fetch
  resolve: Resolver
  selfAddresses: SelfAddresses
}

/** The target is not one the policy lets the server call. The message names no more than the caller wrote. */
export class OutboundRefused extends Error {
  constructor(
    readonly refusal: Refusal | 'scheme',
    /** 'host': the URL as written; 'resolved': an address its name resolved to */
    readonly stage: 'host' | 'resolved',
    message: string,
    /** the host as the URL names it */
    readonly host = '',
  ) {
    super(message)
  }
}

/**
 * Name not resolved, connection refused or reset, TLS failure, deadline passed: one kind, so
 * the answer to a caller cannot tell a closed port from a filtered one. `detail` is for logs.
 */
export class OutboundUnreachable extends Error {
  constructor(readonly detail: string) {
    super('could not reach the server')
  }
}

/** The server answered with a redirect; redirects are never followed (a 3xx could point anywhere). */
export class OutboundRedirect extends Error {
  constructor(
    readonly status: number,
    /** the Location header as sent, for a caller that follows redirects itself, each through safeFetch again */
    readonly location: string | null = null,
  ) {
    super(`the server answered with a redirect (HTTP ${status}); redirects are not followed`)
  }
}

/** RequestInit plus Bun's tls options; proxy and redirect are safeFetch's to set. */
type FetchInit = Omit<BunFetchRequestInit, 'proxy' | 'redirect'>

const isAbort = (err: unknown, signal?: AbortSignal | null) => !!signal?.aborted || ['AbortError', 'TimeoutError'].includes((err as Error)?.name)

function errorDetail(err: unknown, signal?: AbortSignal | null): string {
  if (isAbort(err, signal)) return 'timeout'
  const e = err as { code?: unknown; message?: unknown }
  return typeof e?.code === 'string' ? e.code : String(e?.message ?? err).slice(0, 200)
}

/**
 * `lookup`, or the signal's abort if that comes first: the caller's deadline covers the name's
 * resolution too (a resolver that never answers would otherwise hold the caller past it; the
 * lookup itself goes on, and its answer is dropped).
 */
function withinSignal<T>(lookup: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return lookup
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    lookup.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}

/** The addresses to connect to for a URL's host, all of them checked against the policy. */
async function checkedAddresses(
  deps: OutboundDeps,
  url: URL,
  policy: OutboundPolicy,
  signal: AbortSignal | null | undefined,
): Promise<{ addresses: string[]; byName: boolean }> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const literal = hostRefusal(host, policy, deps.selfAddresses)
  if (literal) throw new OutboundRefused(literal, 'host', `the URL points at ${describeRefusal(literal)}`, host)
  if (classifyIp(host) !== null) return { addresses: [host], byName: false }
  let addresses: string[]
  try {
    addresses = await withinSignal(deps.resolve(host.replace(/\.$/, '')), signal)
  } catch (err) {
    throw new OutboundUnreachable(`dns: ${errorDetail(err, signal)}`)
  }
  if (!addresses.length) throw new OutboundUnreachable('dns: no addresses')
  // All of them, not the first: a name may answer a safe address and a forbidden one.
  for (const ip of addresses) {
    const refusal = addressRefusal(ip, policy, deps.selfAddresses)
    if (refusal) throw new OutboundRefused(refusal, 'resolved', `${host} resolves to an address this server may not call`, host)
  }
  return { addresses, byName: true }
}

/**
 * fetch for a URL someone else chose: the host is checked against the policy as written and,
 * for a name, on every address it resolves to; the connection then goes to a checked address
 * (the URL's host is replaced by it, the name travels in Host and, for https, as the TLS server
 * name the certificate is verified against), so a second lookup cannot swap in another
 * address. No proxy (it would resolve the name again), no redirects. `init.body` must be a
 * string or bytes: it may be sent to a second address after a failed connection.
 */
export async function safeFetch(deps: OutboundDeps, url: string | URL, init: FetchInit, policy: OutboundPolicy): Promise<Response> {
  const target = new URL(url)
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new OutboundRefused('scheme', 'host', 'only http and https URLs are called')
  const { addresses, byName } = await checkedAddresses(deps, target, policy, init.signal)
  const name = target.hostname.replace(/\.$/, '')
  const headers = new Headers(init.headers)
  if (byName) headers.set('host', target.host.replace(/\.(?=:|$)/, ''))
  let lastError: unknown
  // Several addresses: the next one after a failed connection, as a resolver-driven client would.
  for (const ip of addresses.slice(0, 3)) {
    const pinned = new URL(target)
    pinned.hostname = ip.includes(':') ? `[${ip.replace(/%.*$/, '')}]` : ip
    const tls = byName && target.protocol === 'https:' ? { ...init.tls, serverName: name } : init.tls
    let res: Response
    try {
      res = await deps.fetch(pinned, { ...init, headers, tls, proxy: false, redirect: 'manual' })
    } catch (err) {
      lastError = err
      if (isAbort(err, init.signal)) break
      continue
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {})
      throw new OutboundRedirect(res.status, res.headers.get('location'))
    }
    return res
  }
  throw new OutboundUnreachable(errorDetail(lastError, init.signal))
}
