import { isIP } from 'node:net'

/**
 * Where a language-model base_url may point. The LAN is fine (an Ollama box on 192.168.x),
 * but link-local and cloud-metadata endpoints hand out instance credentials to anyone who
 * can make the server call them, so they are refused: at save time for literal addresses
 * and names, and again at call time after DNS resolution (a name can point anywhere).
 */
const BLOCKED_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
])

/** Single metadata addresses outside the link-local ranges (Alibaba, Azure wire server, Oracle). */
const BLOCKED_V4 = new Set(['100.100.100.200', '168.63.129.16', '192.0.0.192'])

function v4Octets(ip: string): number[] | null {
  const parts = ip.split('.')
  if (parts.length !== 4) return null
  const n = parts.map(Number)
  return n.every((x) => Number.isInteger(x) && x >= 0 && x <= 255) ? n : null
}

/** Expands an IPv6 literal to its 8 groups (null if it is not one). */
function v6Groups(ip: string): number[] | null {
  let s = ip.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  const v4tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s)
  if (v4tail) {
    const o = v4Octets(v4tail[1]!)
    if (!o) return null
    s = s.slice(0, -v4tail[1]!.length) + `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`
  }
  const halves = s.split('::')
  if (halves.length > 2) return null
  const head = halves[0] ? halves[0].split(':') : []
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : []
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0
  const groups = [...head, ...Array(Math.max(fill, 0)).fill('0'), ...tail]
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null
  return groups.map((g) => parseInt(g, 16))
}

function blockedV4(ip: string): boolean {
  const o = v4Octets(ip)
  if (!o) return false
  return (o[0] === 169 && o[1] === 254) || o[0] === 0 || BLOCKED_V4.has(ip)
}

function blockedV6(ip: string): boolean {
  const g = v6Groups(ip)
  if (!g) return false
  if ((g[0]! & 0xffc0) === 0xfe80) return true // fe80::/10 link-local
  if (g.every((x) => x === 0)) return true // ::
  // fd00:ec2::254 (AWS IMDS over IPv6)
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) return true
  // the IPv4-mapped form of a blocked IPv4 address (::ffff:169.254.169.254)
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return blockedV4(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`)
  }
  return false
}

export function isBlockedAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '')
  const kind = isIP(bare.replace(/%.*$/, ''))
  if (kind === 4) return blockedV4(bare)
  if (kind === 6) return blockedV6(bare)
  return false
}

export function isBlockedHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '')
  return BLOCKED_NAMES.has(h) || isBlockedAddress(h)
}

/** Why a base_url is refused at save time, or null if it is acceptable. */
export function baseUrlProblem(raw: string): string | null {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return 'base_url must be an absolute http(s) URL'
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'base_url must use http or https'
  if (u.username || u.password) return 'base_url must not carry credentials; use api_key'
  if (u.search || u.hash) return 'base_url must not have a query or fragment'
  if (isBlockedHostname(u.hostname)) return 'base_url points at a link-local or cloud-metadata address'
  return null
}

export type Lookup = (hostname: string) => Promise<string[]>

/** Bun's resolver: every address the name resolves to (both families). */
export const systemLookup: Lookup = async (hostname) => (await Bun.dns.lookup(hostname, {})).map((r) => r.address)

/** The call-time check: the name must not resolve to a refused address (any of its addresses). */
export async function assertSafeTarget(url: URL, lookup: Lookup): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isBlockedHostname(host)) throw new RefusedTarget('the provider address is link-local or cloud metadata')
  if (isIP(host)) return
  const addresses = await lookup(host)
  if (addresses.some(isBlockedAddress)) throw new RefusedTarget(`${host} resolves to a link-local or cloud-metadata address`)
}

export class RefusedTarget extends Error {}
