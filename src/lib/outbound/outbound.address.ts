/**
 * What kind of address a host is, for deciding whether the server may call it on someone's
 * behalf. IPv4 literals are read as inet_aton and the URL standard read them (2130706433,
 * 0x7f000001, 127.1, 0177.0.0.1 are all 127.0.0.1), and IPv6 forms that carry an IPv4 address
 * (mapped, compatible, NAT64, 6to4, Teredo) are judged by that address: a filter that only knew
 * the usual spellings would be a filter with holes.
 */
export type AddressKind =
  | 'public'
  | 'private' // RFC 1918, CGNAT, ULA, site-local, benchmarking (fake-IP resolvers live there)
  | 'loopback'
  | 'unspecified'
  | 'link_local'
  | 'metadata' // cloud instance-metadata endpoints, whatever range they sit in
  | 'multicast'
  | 'broadcast'
  | 'reserved' // documentation, future use, discard, anything outside global unicast

/** Worst first: when an address embeds another, the more dangerous reading wins. */
const SEVERITY: AddressKind[] = ['metadata', 'link_local', 'unspecified', 'broadcast', 'multicast', 'reserved', 'loopback', 'private', 'public']
export const worse = (a: AddressKind, b: AddressKind) => (SEVERITY.indexOf(a) <= SEVERITY.indexOf(b) ? a : b)

/** One IPv4 part as inet_aton reads it: 0x… hex, 0… octal, else decimal. */
function v4Part(p: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(p)) return p.length === 2 ? 0 : parseInt(p.slice(2), 16)
  if (/^0[0-7]*$/.test(p)) return parseInt(p, 8)
  if (/^[1-9][0-9]*$/.test(p)) return Number(p)
  return null
}

/** An IPv4 literal in any inet_aton spelling (1 to 4 parts, the last filling the rest) as a 32-bit number. */
export function parseIPv4(host: string): number | null {
  const parts = host.replace(/\.$/, '').split('.')
  if (parts.length < 1 || parts.length > 4 || parts.some((p) => p === '')) return null
  const nums = parts.map(v4Part)
  if (nums.some((n) => n === null || !Number.isFinite(n))) return null
  const last = nums.pop()!
  if (nums.some((n) => n! > 255) || last >= 2 ** (8 * (4 - nums.length))) return null
  return nums.reduce<number>((acc, n, i) => acc + n! * 2 ** (8 * (3 - i)), 0) + last
}

/** An IPv6 literal (brackets and zone id tolerated) as its eight 16-bit groups. */
export function parseIPv6(host: string): number[] | null {
  let s = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
  if (!s.includes(':')) return null
  const dotted = /(?:^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(s)
  if (dotted) {
    const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(dotted[1]!) ? parseIPv4(dotted[1]!) : null
    if (v4 === null || dotted[1]!.split('.').some((o) => Number(o) > 255)) return null
    s = `${s.slice(0, -dotted[1]!.length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`
  }
  const halves = s.split('::')
  if (halves.length > 2) return null
  const head = halves[0] ? halves[0].split(':') : []
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : []
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0
  if (fill < 0) return null
  const groups = [...head, ...Array<string>(fill).fill('0'), ...tail]
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null
  return groups.map((g) => parseInt(g, 16))
}

const inV4 = (ip: number, base: string, bits: number) => bits === 0 || ip >>> (32 - bits) === parseIPv4(base)! >>> (32 - bits)

/** Metadata endpoints outside link-local: Alibaba, Azure's wire server, Oracle. */
const METADATA_V4 = ['100.100.100.200', '168.63.129.16', '192.0.0.192'].map((a) => parseIPv4(a)!)

export function classifyIPv4(ip: number): AddressKind {
  if (METADATA_V4.includes(ip) || ip === parseIPv4('169.254.169.254')) return 'metadata'
  if (ip === 0xffffffff) return 'broadcast'
  if (inV4(ip, '0.0.0.0', 8)) return 'unspecified'
  if (inV4(ip, '127.0.0.0', 8)) return 'loopback'
  if (inV4(ip, '169.254.0.0', 16)) return 'link_local'
  if (inV4(ip, '224.0.0.0', 4)) return 'multicast'
  if (inV4(ip, '240.0.0.0', 4)) return 'reserved'
  for (const [base, bits] of [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['100.64.0.0', 10],
    ['198.18.0.0', 15],
  ] as const) {
    if (inV4(ip, base, bits)) return 'private'
  }
  for (const [base, bits] of [
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['192.88.99.0', 24],
  ] as const) {
    if (inV4(ip, base, bits)) return 'reserved'
  }
  return 'public'
}

const v4Of = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0
const zeros = (g: number[], from: number, to: number) => g.slice(from, to).every((x) => x === 0)

export function classifyIPv6(g: number[]): AddressKind {
  if (zeros(g, 0, 8)) return 'unspecified'
  if (zeros(g, 0, 7) && g[7] === 1) return 'loopback'
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated), ::ffff:0:a.b.c.d (SIIT)
  if (zeros(g, 0, 5) && (g[5] === 0xffff || g[5] === 0)) return classifyIPv4(v4Of(g[6]!, g[7]!))
  if (zeros(g, 0, 4) && g[4] === 0xffff && g[5] === 0) return classifyIPv4(v4Of(g[6]!, g[7]!))
  // NAT64: the well-known prefix reaches the embedded address; the local-use one is a private network anyway
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(g, 2, 6)) return classifyIPv4(v4Of(g[6]!, g[7]!))
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return worse(classifyIPv4(v4Of(g[6]!, g[7]!)), 'private')
  if (g[0] === 0x2002) return classifyIPv4(v4Of(g[1]!, g[2]!)) // 6to4
  if (g[0] === 0x2001 && g[1] === 0) {
    // Teredo: the server in groups 2-3, the client (bits inverted) in 6-7
    return worse(classifyIPv4(v4Of(g[2]!, g[3]!)), classifyIPv4(v4Of(~g[6]! & 0xffff, ~g[7]! & 0xffff)))
  }
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && zeros(g, 2, 7) && g[7] === 0x254) return 'metadata' // AWS IMDS over IPv6
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link_local'
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast'
  if ((g[0]! & 0xfe00) === 0xfc00 || (g[0]! & 0xffc0) === 0xfec0) return 'private' // ULA, old site-local
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'reserved' // documentation
  if ((g[0]! & 0xfff0) === 0x3ff0) return 'reserved' // documentation (3fff::/20)
  if (g[0] === 0x0100 && zeros(g, 1, 4)) return 'reserved' // discard-only
  if ((g[0]! & 0xe000) !== 0x2000) return 'reserved' // outside 2000::/3, nothing is assigned
  return 'public'
}

/** The kind of an IP literal, or null when `host` is a name. */
export function classifyIp(host: string): AddressKind | null {
  const v6 = parseIPv6(host)
  if (v6) return classifyIPv6(v6)
  const v4 = parseIPv4(host)
  return v4 === null ? null : classifyIPv4(v4)
}

/** One spelling per address, so this host's own addresses can be compared with a resolved one. */
export function canonicalIp(host: string): string | null {
  const v6 = parseIPv6(host)
  if (v6) {
    // an IPv4 carried as mapped is the same socket address as the IPv4 itself
    if (zeros(v6, 0, 5) && v6[5] === 0xffff) return canonicalIp(String(v4Of(v6[6]!, v6[7]!)))
    return v6.map((x) => x.toString(16)).join(':')
  }
  const v4 = parseIPv4(host)
  return v4 === null ? null : [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join('.')
}
