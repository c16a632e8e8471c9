import { networkInterfaces } from 'node:os'
import { canonicalIp, classifyIp, type AddressKind } from './outbound.address'

/**
 * Where the server may send a request whose URL someone else chose (a tenant's language model,
 * later webhooks and notification channels). Public addresses always; the rest by trust:
 * - allowPrivate: RFC 1918, CGNAT, ULA. The operator's own client may reach its LAN; other
 *   tenants only when the operator says so (VIGIL_OUTBOUND_ALLOW_PRIVATE).
 * - allowLocal: loopback and this host's own addresses. Only for URLs from the server's own
 *   configuration (an Ollama next to Vigil): through the API they would let a caller probe
 *   the instance and everything listening beside it.
 * Link-local, cloud metadata, unspecified, multicast, broadcast and reserved addresses are
 * refused whoever asks: nothing legitimate lives there and metadata hands out credentials.
 */
export interface OutboundPolicy {
  allowPrivate: boolean
  allowLocal: boolean
}

export const TENANT_POLICY: OutboundPolicy = { allowPrivate: false, allowLocal: false }

/** Why a target is refused: the address's kind, or 'self' for one of this host's own addresses. */
export type Refusal = Exclude<AddressKind, 'public'> | 'self'

/** Names of metadata services, refused before any lookup (some resolve only inside the cloud). */
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
])

/** This host's own addresses (canonical spelling), read when asked: interfaces come and go. */
export type SelfAddresses = () => ReadonlySet<string>

export function localAddresses(listenHost?: string): SelfAddresses {
  return () => {
    const out = new Set<string>()
    const listen = listenHost ? canonicalIp(listenHost) : null
    if (listen) out.add(listen)
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) {
        const ip = canonicalIp(a.address)
        if (ip) out.add(ip)
      }
    }
    return out
  }
}

function allowed(kind: AddressKind | 'self', policy: OutboundPolicy): boolean {
  if (kind === 'public') return true
  if (kind === 'private') return policy.allowPrivate
  if (kind === 'loopback' || kind === 'self') return policy.allowLocal
  return false
}

/** The refusal for an IP address, or null when the policy lets the server call it. */
export function addressRefusal(ip: string, policy: OutboundPolicy, self: SelfAddresses): Refusal | null {
  const kind = classifyIp(ip) ?? 'reserved' // not an address at all: nothing to connect to
  if (kind !== 'public' && !allowed(kind, policy)) return kind
  // One of our own public or LAN addresses is still the instance itself.
  const canonical = canonicalIp(ip)
  if (kind !== 'loopback' && canonical && self().has(canonical) && !allowed('self', policy)) return 'self'
  return null
}

/**
 * The refusal for a URL's host as written (an IP literal, or a name refused by name), or null.
 * A name that passes here is judged again on every address it resolves to when it is called.
 */
export function hostRefusal(hostname: string, policy: OutboundPolicy, self: SelfAddresses): Refusal | null {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
  if (classifyIp(host) !== null) return addressRefusal(host, policy, self)
  if (METADATA_NAMES.has(host)) return 'metadata'
  if ((host === 'localhost' || host.endsWith('.localhost')) && !policy.allowLocal) return 'loopback'
  return null
}

const REFUSAL_TEXT: Record<Refusal, string> = {
  metadata: 'a cloud-metadata address',
  link_local: 'a link-local address (where cloud metadata lives)',
  unspecified: 'an unspecified address (0.0.0.0 or ::)',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  loopback: 'this server (a loopback address)',
  self: 'this server (one of its own addresses)',
  private: 'a private network address, which this instance allows only for the operator (VIGIL_OUTBOUND_ALLOW_PRIVATE)',
}

export const describeRefusal = (r: Refusal) => REFUSAL_TEXT[r]

/**
 * Why a URL someone wants the server to call is refused when it is saved, or null if acceptable.
 * With `words`, a refused host is worded for its reader (outbound.words: the operator is told
 * which setting allows it).
 */
export function urlProblem(raw: string, policy: OutboundPolicy, self: SelfAddresses, field = 'url', words?: (r: Refusal) => string): string | null {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return `${field} must be an absolute http(s) URL`
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `${field} must use http or https`
  if (u.username || u.password) return `${field} must not carry credentials`
  if (u.search || u.hash) return `${field} must not have a query or fragment`
  const refusal = hostRefusal(u.hostname, policy, self)
  return refusal ? `${field} points at ${words ? words(refusal) : describeRefusal(refusal)}` : null
}
