import { parseIPv6 } from '../../../lib/outbound/outbound.address'

/** a dotted IPv4 address as node:net's isIP takes it (no leading zeros, each part ≤ 255) */
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/
/**
 * Checked here rather than with node:net's isIP: the agent parses its DNS checks' resolvers too,
 * and node:net brings Node's stream machinery into the collector (several MB resident).
 */
const isIp = (text: string): 4 | 6 | 0 => (IPV4.test(text) ? 4 : !text.startsWith('[') && parseIPv6(text) ? 6 : 0)

/** "1.1.1.1", "1.1.1.1:5353", "[::1]:53", "::1" as host and port, or null. */
export function parseResolver(text: string): { host: string; port: number } | null {
  const bracket = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text)
  if (bracket) return isIp(bracket[1]!) ? { host: bracket[1]!, port: Number(bracket[2] ?? 53) } : null
  if (isIp(text)) return { host: text, port: 53 }
  const m = /^([^:]+):(\d{1,5})$/.exec(text)
  if (m && isIp(m[1]!) === 4 && Number(m[2]) >= 1 && Number(m[2]) <= 65535) return { host: m[1]!, port: Number(m[2]) }
  return null
}
