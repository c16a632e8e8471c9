import { parseIPv4, parseIPv6 } from './outbound/outbound.address'

/** An address range: eight 16-bit groups (IPv4 as its IPv4-mapped IPv6 form) and a prefix length over 128 bits. */
export interface Cidr {
  groups: number[]
  bits: number
}

/**
 * An address as eight 16-bit groups, IPv4 and IPv4-mapped IPv6 alike (Bun reports a dual-stack
 * socket's IPv4 peer as ::ffff:a.b.c.d); a port after it (`1.2.3.4:5678`, `[::1]:80`) is
 * dropped. Null when it is not an IP address.
 */
export function addressGroups(raw: string): number[] | null {
  let s = raw.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s)
  if (bracketed) s = bracketed[1]!
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'))
  if (s.length > 64) return null
  if (s.includes(':')) return parseIPv6(s)
  // dotted quads only: an X-Forwarded-For entry like "12" is not an address
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) return null
  const v4 = parseIPv4(s)
  return v4 === null ? null : [0, 0, 0, 0, 0, 0xffff, v4 >>> 16, v4 & 0xffff]
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (`192.0.2.1`, `::1`). */
export function parseCidr(raw: string): Cidr | null {
  const [addr, prefix, ...rest] = raw.trim().split('/')
  if (rest.length || !addr) return null
  const groups = addressGroups(addr)
  if (!groups) return null
  const v4 = !addr.includes(':')
  const max = v4 ? 32 : 128
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return null
  const n = prefix === undefined ? max : Number(prefix)
  if (n > max) return null
  return { groups, bits: v4 ? n + 96 : n }
}

/** Whether the address (as addressGroups reads it) lies in the range. */
export function inCidr(groups: number[], cidr: Cidr): boolean {
  let left = cidr.bits
  for (let i = 0; i < 8 && left > 0; i++, left -= 16) {
    const take = Math.min(16, left)
    const mask = (0xffff << (16 - take)) & 0xffff
    if ((groups[i]! & mask) !== (cidr.groups[i]! & mask)) return false
  }
  return true
}
