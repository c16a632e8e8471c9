import type { MetricKind } from './metrics.fields'
import { zstdCompress, zstdDecompress } from './metrics.hot.zstd'

/**
 * The compact form a sample has from ingest on (see docs/storage.md): one record per stored
 * part set, appended to metric_hot. Writing each sample once in a few hundred bytes, on
 * sequential pages, instead of a 4 KB row and an index leaf per device, is what keeps the bytes
 * written per sample low.
 *
 * A record's parts (hot values and rest text of each kind it carries) are laid out as one text,
 * compressed with zstd using the text of the device's previous record as its dictionary: two
 * consecutive samples of a machine share most of their text, so what is left is their
 * differences (about 300 B for a 3.6 KB sample) for about a tenth of the CPU the template/XOR
 * coder took on the request path (measured in docs/storage.md). zstd is lossless and the layout
 * is length-prefixed, so any rest text comes back as it was; hot values are printed as the
 * shortest text that parses back to the same double (-0 kept).
 */

export interface HotPart {
  kind: MetricKind
  /** the hot values in FIELDS order */
  values: (number | null)[]
  rest: string | null
}

/** What a record is coded against: the text of the record before it in its device's chain (null: it stands alone). */
export type HotRef = Uint8Array

const SEP = '\u0001'
const FLAG_ALONE = 0
const FLAG_CHAINED = 1
/**
 * Level 1: with a dictionary this close to the input, higher levels found no fewer bytes on the
 * real sample (276 B at 1, 312 B at 3) and cost more CPU on the request path.
 */
const ZSTD_LEVEL = 1
const KIND_BIT: Record<MetricKind, number> = { hardware: 1, network: 2 }

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()

/** A hot value as text that JSON.parse gives back bit for bit (-0 included, which String() would print as 0). */
const valueText = (v: number | null) => (v === null ? 'null' : Object.is(v, -0) ? '-0' : String(v))

/** kind, values and the rest's length (-1: none) between separators, then the rest itself */
function recordText(parts: HotPart[]): string {
  let text = ''
  for (const p of parts) {
    const values = p.values
    text += `${KIND_BIT[p.kind]}${SEP}[`
    for (let i = 0; i < values.length; i++) text += i ? `,${valueText(values[i] ?? null)}` : valueText(values[i] ?? null)
    text += p.rest === null ? `]${SEP}-1${SEP}` : `]${SEP}${p.rest.length}${SEP}${p.rest}`
  }
  return text
}

function partsOf(text: string): HotPart[] {
  const parts: HotPart[] = []
  let at = 0
  while (at < text.length) {
    const a = text.indexOf(SEP, at)
    const b = text.indexOf(SEP, a + 1)
    const c = text.indexOf(SEP, b + 1)
    const length = Number(text.slice(b + 1, c))
    const kind: MetricKind = text.slice(at, a) === '1' ? 'hardware' : 'network'
    const values = JSON.parse(text.slice(a + 1, b)) as (number | null)[]
    parts.push({ kind, values, rest: length < 0 ? null : text.slice(c + 1, c + 1 + length) })
    at = c + 1 + Math.max(0, length)
  }
  return parts
}

/**
 * Encodes a record against the record before it (`ref`: its text), or alone when `ref` is null;
 * returns its bytes and its text, the reference of the record after it.
 */
export function encodeHot(parts: HotPart[], ref: HotRef | null): { data: Uint8Array; ref: HotRef } {
  const text = utf8.encode(recordText(parts))
  const packed = zstdCompress(text, ZSTD_LEVEL, ref ?? undefined)
  const data = new Uint8Array(1 + packed.length)
  data[0] = ref ? FLAG_CHAINED : FLAG_ALONE
  data.set(packed, 1)
  return { data, ref: text }
}

/** Decodes a record coded against `ref` (the text of the record before it, as the encoder had it). */
export function decodeHot(data: Uint8Array, ref: HotRef | null): { parts: HotPart[]; ref: HotRef } {
  const text = decodeHotText(data, ref)
  return { parts: hotParts(text), ref: text }
}

/** A record's text (UTF-8), decoded against `ref`: the reference of the record after it, and what hotRest reads. */
export function decodeHotText(data: Uint8Array, ref: HotRef | null): HotRef {
  const packed = data.subarray(1)
  if (data[0] === FLAG_ALONE) return zstdDecompress(packed)
  if (ref) return zstdDecompress(packed, ref)
  throw new Error('hot record needs the record before it')
}

/** The parts of a record's text. */
const hotParts = (text: HotRef): HotPart[] => partsOf(fromUtf8.decode(text))

const SEP_BYTE = 1
const MINUS_BYTE = 45
const DIGIT0 = 48

/**
 * The rest text of one kind in a record's text as its UTF-8 bytes (a view, no string made: a
 * history page writes them into its answer as they are); null when the part has none, undefined
 * when the record does not carry the kind. A rest is JSON text, which holds no raw SEP, so it ends
 * where the next part's kind and SEP begin; the length before it counts UTF-16 units, which a
 * text of multi-byte characters exceeds in bytes, and never falls short of.
 */
export function hotRest(text: HotRef, kind: MetricKind): Uint8Array | null | undefined {
  const want = DIGIT0 + KIND_BIT[kind]
  let at = 0
  while (at < text.length) {
    const a = text.indexOf(SEP_BYTE, at)
    const b = text.indexOf(SEP_BYTE, a + 1)
    const c = text.indexOf(SEP_BYTE, b + 1)
    if (a === -1 || b === -1 || c === -1) throw new Error('hot record text is malformed')
    const none = text[b + 1] === MINUS_BYTE
    const next = none ? -1 : text.indexOf(SEP_BYTE, c + 1)
    const end = none ? c + 1 : next === -1 ? text.length : next - 1
    let declared = 0
    for (let i = b + 1; i < c; i++) declared = declared * 10 + text[i]! - DIGIT0
    if (!none && end - (c + 1) < declared) throw new Error('hot record text is malformed')
    if (a === at + 1 && text[at] === want) return none ? null : text.subarray(c + 1, end)
    at = end
  }
  return undefined
}

/** Whether a record stands alone (its chain may restart there). */
export const standsAlone = (data: Uint8Array) => data[0] === FLAG_ALONE
