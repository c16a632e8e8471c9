/**
 * DNS messages (RFC 1035) for the DNS probe's one query: the question written, the answer's
 * records of the asked type read, names decompressed. What node:dns's resolve() gives for the
 * same records, so answerText() and the expected answers read them the same way.
 */

export const RECORD_TYPES = { A: 1, NS: 2, CNAME: 5, PTR: 12, MX: 15, TXT: 16, AAAA: 28, SRV: 33, CAA: 257 } as const
export type RecordType = keyof typeof RECORD_TYPES

/** A query for `name`'s records of `type`, recursion desired. */
export function encodeQuery(id: number, name: string, type: RecordType): Uint8Array {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean)
  const parts: number[] = [id >> 8, id & 255, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
  for (const label of labels) {
    const bytes = new TextEncoder().encode(label)
    if (bytes.length > 63) throw Object.assign(new Error('a label of the name is longer than 63 bytes'), { code: 'EBADNAME' })
    parts.push(bytes.length, ...bytes)
  }
  const code = RECORD_TYPES[type]
  parts.push(0, code >> 8, code & 255, 0, 1)
  return Uint8Array.from(parts)
}

export type Answer =
  | string
  | string[]
  | { exchange: string; priority: number }
  | { name: string; port: number; priority: number; weight: number }
  | Record<string, unknown>

/** What came back: the records of the asked type, or why there are none. */
export type Reply = { id: number; answers: Answer[] } | { id: number; error: 'ENOTFOUND' | 'ENODATA' | 'ESERVFAIL' | 'EREFUSED' | 'ETRUNCATED' | 'EBADRESP' }

/** Reads a reply; records of other types (a CNAME chain before the A records) are skipped. */
export function decodeReply(msg: Uint8Array, type: RecordType): Reply {
  const view = new DataView(msg.buffer, msg.byteOffset, msg.byteLength)
  if (msg.length < 12) return { id: -1, error: 'EBADRESP' }
  const id = view.getUint16(0)
  const flags = view.getUint16(2)
  if (flags & 0x0200) return { id, error: 'ETRUNCATED' }
  const rcode = flags & 0x0f
  if (rcode === 3) return { id, error: 'ENOTFOUND' }
  if (rcode === 2) return { id, error: 'ESERVFAIL' }
  if (rcode === 5) return { id, error: 'EREFUSED' }
  if (rcode !== 0) return { id, error: 'EBADRESP' }
  try {
    let at = 12
    for (let q = view.getUint16(4); q > 0; q--) at = readName(msg, at).end + 4
    const answers: Answer[] = []
    const want = RECORD_TYPES[type]
    for (let a = view.getUint16(6); a > 0; a--) {
      at = readName(msg, at).end
      const rtype = view.getUint16(at)
      const length = view.getUint16(at + 8)
      const start = at + 10
      at = start + length
      if (at > msg.length) return { id, error: 'EBADRESP' }
      if (rtype === want) answers.push(record(msg, view, type, start, length))
    }
    return answers.length ? { id, answers } : { id, error: 'ENODATA' }
  } catch {
    return { id, error: 'EBADRESP' }
  }
}

function record(msg: Uint8Array, view: DataView, type: RecordType, at: number, length: number): Answer {
  switch (type) {
    case 'A':
      return [...msg.subarray(at, at + 4)].join('.')
    case 'AAAA':
      return ipv6Text(view, at)
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return readName(msg, at).name
    case 'MX':
      return { priority: view.getUint16(at), exchange: readName(msg, at + 2).name }
    case 'SRV':
      return { priority: view.getUint16(at), weight: view.getUint16(at + 2), port: view.getUint16(at + 4), name: readName(msg, at + 6).name }
    case 'TXT': {
      const chunks: string[] = []
      for (let i = at; i < at + length; i += msg[i]! + 1) chunks.push(new TextDecoder().decode(msg.subarray(i + 1, i + 1 + msg[i]!)))
      return chunks
    }
    case 'CAA': {
      const tagLength = msg[at + 1]!
      const tag = new TextDecoder().decode(msg.subarray(at + 2, at + 2 + tagLength))
      return { critical: msg[at]!, [tag]: new TextDecoder().decode(msg.subarray(at + 2 + tagLength, at + length)) }
    }
  }
}

/** A name at `at` (compression pointers followed, at most 64 of them), and where its bytes end. */
function readName(msg: Uint8Array, at: number): { name: string; end: number } {
  const labels: string[] = []
  let end = -1
  for (let hops = 0; hops < 64; hops++) {
    const len = msg[at]
    if (len === undefined) throw new Error('name past the end')
    if (len === 0) return { name: labels.join('.'), end: end === -1 ? at + 1 : end }
    if ((len & 0xc0) === 0xc0) {
      if (end === -1) end = at + 2
      at = ((len & 0x3f) << 8) | msg[at + 1]!
      continue
    }
    labels.push(new TextDecoder().decode(msg.subarray(at + 1, at + 1 + len)))
    at += len + 1
  }
  throw new Error('name loops')
}

/** The shortest text of an IPv6 address (RFC 5952), as node:dns gives it. */
function ipv6Text(view: DataView, at: number): string {
  const groups = Array.from({ length: 8 }, (_, i) => view.getUint16(at + i * 2))
  let best = -1
  let bestLen = 1
  for (let i = 0; i < 8; ) {
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLen) {
      best = i
      bestLen = j - i
    }
    i = j === i ? i + 1 : j
  }
  const hex = groups.map((g) => g.toString(16))
  if (best === -1) return hex.join(':')
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`
}
