import { splitNumbers } from './metrics.block'
import type { MetricKind } from './metrics.fields'

/**
 * The compact form a sample has from ingest on (see docs/storage.md): one record per stored
 * part set, appended to metric_hot, coded against the device's previous record of the same
 * segment. Writing each sample once in a few hundred bytes, on sequential pages, instead of a
 * 4 KB row and an index leaf per device, is what keeps the bytes written per sample low.
 *
 * A record's parts (hot values and rest text of each kind it carries) are laid out as one text,
 * the pieces separated by SEP (a control character JSON text never holds raw). The text is split
 * into a template and its numbers (as the block format does); a template equal to the reference
 * record's is not repeated, and the numbers are XORed with the reference's, laid out in byte
 * planes and compressed with zstd. The encoder checks that the record decodes to the very parts
 * it was given, else it keeps the text whole (still compressed).
 */

export interface HotPart {
  kind: MetricKind
  /** the hot values in FIELDS order */
  values: (number | null)[]
  rest: string | null
}

/**
 * What a record is coded against: the templates its device's chain has used so far in its
 * segment, and per template the numbers of the last record that had it (a collector's sample
 * alternates between a few shapes, as its top-process lists reorder).
 */
export interface HotRef {
  templates: string[]
  numbers: Float64Array[]
}

const SEP = '\u0001'
const SLOT = '\u0000'
const FLAG_TEMPLATE = 1
const FLAG_VERBATIM = 2
const ZSTD_LEVEL = 3
const KIND_BIT: Record<MetricKind, number> = { hardware: 1, network: 2 }

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()

/** A hot value as text that JSON.parse gives back bit for bit (-0 included, which String() would print as 0). */
const valueText = (v: number | null) => (v === null ? 'null' : Object.is(v, -0) ? '-0' : String(v))

function recordText(parts: HotPart[]): string {
  let text = ''
  for (const p of parts) text += `${KIND_BIT[p.kind]}${SEP}[${p.values.map(valueText).join(',')}]${SEP}${p.rest ?? ''}${SEP}`
  return text
}

function partsOf(text: string): HotPart[] {
  const pieces = text.split(SEP)
  const parts: HotPart[] = []
  for (let i = 0; i + 3 < pieces.length; i += 3) {
    const kind: MetricKind = pieces[i] === '1' ? 'hardware' : 'network'
    parts.push({ kind, values: JSON.parse(pieces[i + 1]!) as (number | null)[], rest: pieces[i + 2] === '' ? null : pieces[i + 2]! })
  }
  return parts
}

/** Encodes a record; returns its bytes and the reference the device's next record is coded against. */
export function encodeHot(parts: HotPart[], ref: HotRef | null): { data: Uint8Array; ref: HotRef } {
  const text = recordText(parts)
  const { template, numbers } = splitNumbers(text)
  const values = new Float64Array(numbers)
  const known = ref ? ref.templates.indexOf(template) : -1
  const next = withTemplate(ref, known, template, values)
  const head = known === -1 ? utf8.encode(template) : new Uint8Array(0)
  const coded = new Float64Array(values)
  if (known !== -1) xorInto(coded, ref!.numbers[known]!)
  const plain = new Uint8Array(5 + head.length + coded.length * 8)
  plain[0] = known === -1 ? FLAG_TEMPLATE : 0
  // a new template's length, or a known one's place in the chain's list
  new DataView(plain.buffer).setUint32(1, known === -1 ? head.length : known, true)
  plain.set(head, 5)
  plain.set(planes(new Uint8Array(coded.buffer)), 5 + head.length)
  const data = Bun.zstdCompressSync(plain, { level: ZSTD_LEVEL })
  if (sameParts(decodeHot(data, ref).parts, parts)) return { data, ref: next }
  // a text the split does not give back (a raw NUL or SEP in a rest) is kept whole
  const whole = utf8.encode(text)
  const verbatim = new Uint8Array(1 + whole.length)
  verbatim[0] = FLAG_VERBATIM
  verbatim.set(whole, 1)
  return { data: Bun.zstdCompressSync(verbatim, { level: ZSTD_LEVEL }), ref: next }
}

/** The chain's reference after a record of `template` (at `known` in the list, or new at -1) with these numbers; the old one is left as it was. */
function withTemplate(ref: HotRef | null, known: number, template: string, values: Float64Array): HotRef {
  const templates = ref ? ref.templates.slice() : []
  const numbers = ref ? ref.numbers.slice() : []
  if (known === -1) {
    templates.push(template)
    numbers.push(values)
  } else numbers[known] = values
  return { templates, numbers }
}

/** Decodes a record coded against `ref` (the same reference the encoder was given). */
export function decodeHot(data: Uint8Array, ref: HotRef | null): { parts: HotPart[]; ref: HotRef } {
  const plain = Bun.zstdDecompressSync(data)
  if (plain[0] === FLAG_VERBATIM) {
    const text = fromUtf8.decode(plain.subarray(1))
    const { template, numbers } = splitNumbers(text)
    const known = ref ? ref.templates.indexOf(template) : -1
    return { parts: partsOf(text), ref: withTemplate(ref, known, template, new Float64Array(numbers)) }
  }
  const word = new DataView(plain.buffer, plain.byteOffset).getUint32(1, true)
  const isNew = plain[0] === FLAG_TEMPLATE
  const headLength = isNew ? word : 0
  let template: string
  if (isNew) template = fromUtf8.decode(plain.subarray(5, 5 + headLength))
  else if (ref && word < ref.templates.length) template = ref.templates[word]!
  else throw new Error('hot record needs the records before it')
  const bytes = unplanes(plain.subarray(5 + headLength))
  const numbers = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8)
  if (!isNew) xorInto(numbers, ref!.numbers[word]!)
  const pieces = template.split(SLOT)
  let text = pieces[0]!
  for (let k = 1; k < pieces.length; k++) text += String(numbers[k - 1]) + pieces[k]!
  return { parts: partsOf(text), ref: withTemplate(ref, isNew ? -1 : word, template, numbers) }
}

function xorInto(target: Float64Array, ref: Float64Array) {
  const t = new Uint32Array(target.buffer, target.byteOffset, target.length * 2)
  const r = new Uint32Array(ref.buffer, ref.byteOffset, ref.length * 2)
  for (let i = 0; i < t.length; i++) t[i] = t[i]! ^ r[i]!
}

/** Byte planes: every number's byte 0, then every byte 1, ... (the XORs' zero bytes line up for zstd). */
function planes(bytes: Uint8Array): Uint8Array {
  const n = bytes.length / 8
  const out = new Uint8Array(bytes.length)
  for (let i = 0; i < n; i++) for (let b = 0; b < 8; b++) out[b * n + i] = bytes[i * 8 + b]!
  return out
}

function unplanes(bytes: Uint8Array): Uint8Array {
  const n = bytes.length / 8
  const out = new Uint8Array(bytes.length)
  for (let i = 0; i < n; i++) for (let b = 0; b < 8; b++) out[i * 8 + b] = bytes[b * n + i]!
  return out
}

function sameParts(a: HotPart[], b: HotPart[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.kind !== y.kind || x.rest !== y.rest || x.values.length !== y.values.length) return false
    for (let k = 0; k < x.values.length; k++) if (!Object.is(x.values[k], y.values[k])) return false
  }
  return true
}
