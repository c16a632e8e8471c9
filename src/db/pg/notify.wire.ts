/**
 * The form of the hubs' messages on their NOTIFY channel, and how queued messages are packed into
 * payloads. One payload: `{"o":origin,"n":count,"m":[[topic,key,body],…],"l":lost}`, where `n`
 * counts the payloads of that origin (a receiver that sees a number skipped knows it missed one)
 * and `l` names the accounts whose messages the sender had to drop ("*": any). A message too
 * large for a payload goes in a row of hub_messages: the payload is then `{"o","n","r":id}`.
 */

/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more; a margin for the envelope */
export const PAYLOAD_LIMIT = 7_900

export interface Queued {
  topic: string
  key: string
  json: string
  /** the item's bytes as it will be written: `[topic,key,json]` */
  bytes: number
}

export const itemOf = (topic: string, key: string, json: string): Queued => ({
  topic,
  key,
  json,
  bytes: Buffer.byteLength(json) + Buffer.byteLength(JSON.stringify(topic)) + Buffer.byteLength(JSON.stringify(key)) + 4,
})

export const lostJson = (lost: 'all' | readonly string[]): string => (lost === 'all' ? '"*"' : JSON.stringify(lost))

/** the envelope around items: what a payload costs before its first item */
export function head(origin: string, n: number, lost: string | null): string {
  return `{"o":${JSON.stringify(origin)},"n":${n}${lost ? `,"l":${lost}` : ''},"m":[`
}

/**
 * The first payload of `queue`: as many items as fit in `limit` bytes, at least one. Returns the
 * text and how many items it took; `fits` is false when its one item alone is over the limit
 * (it goes by reference).
 */
export function pack(queue: readonly Queued[], envelope: string, limit = PAYLOAD_LIMIT): { text: string; taken: number; fits: boolean } {
  let bytes = Buffer.byteLength(envelope) + 2
  const parts: string[] = []
  for (const item of queue) {
    const more = item.bytes + (parts.length ? 1 : 0)
    if (parts.length && bytes + more > limit) break
    bytes += more
    parts.push(`[${JSON.stringify(item.topic)},${JSON.stringify(item.key)},${item.json}]`)
  }
  return { text: `${envelope}${parts.join(',')}]}`, taken: parts.length, fits: bytes <= limit }
}

export const referenceText = (origin: string, n: number, id: number) => `{"o":${JSON.stringify(origin)},"n":${n},"r":${id}}`

export interface Payload {
  origin: string
  n: number
  /** the hub_messages row holding the payload, when sent by reference */
  ref?: number
  items: { topic: string; key: string; body: unknown }[]
  lost: 'all' | string[] | null
}

/** a payload as received, or null when it is not one of ours (another program on the channel) */
export function parsePayload(text: string): Payload | null {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return null
  }
  if (!v || typeof v !== 'object') return null
  const { o, n, r, m, l } = v as Record<string, unknown>
  if (typeof o !== 'string' || typeof n !== 'number') return null
  if (typeof r === 'number') return { origin: o, n, ref: r, items: [], lost: null }
  if (!Array.isArray(m)) return null
  const items = m
    .filter((x): x is [string, string, unknown] => Array.isArray(x) && typeof x[0] === 'string' && typeof x[1] === 'string')
    .map(([topic, key, body]) => ({ topic, key, body }))
  const lost = l === '*' ? 'all' : Array.isArray(l) ? l.filter((k): k is string => typeof k === 'string') : null
  return { origin: o, n, items, lost }
}
