import { ByteReader, ByteWriter, shuffle } from '../../lib/byte-codec'
import type { JsonBytes } from '../../lib/json-bytes'
import type { MetricKind } from './metrics.fields'
import { countSlots, splitNumbers, templateText, type TemplateText } from './metrics.templates'
import { templateBytes, type TemplateBytes } from './metrics.templates.bytes'

/**
 * The long-lived form of a device's nested fields (each part's JSON "rest": per-core loads,
 * partitions, disk I/O, interfaces, processes), one block per device and ten minutes (BLOCK_MS).
 *
 * A rest text is split into a template (the text with every number replaced by a NUL, which
 * JSON text never holds raw) and its numbers. Consecutive samples mostly share their template,
 * so a block keeps each distinct template once; each number is XORed with the same slot of the
 * previous sample of the same template and kind (a slowly moving value leaves mostly zero bits),
 * the 8 bytes of every number are laid out as 8 planes (the zeros line up), and the whole is
 * compressed with zstd. Decoding gives back the very text that was stored: a number is cut out
 * only when printing it again gives the same characters, and the encoder checks the round trip
 * of the whole block, keeping the texts verbatim (still compressed) when anything differs.
 */

/** One stored rest text: the row it belongs to, and which part of the row. */
export interface BlockEntry {
  id: number
  kind: MetricKind
  text: string
}

const FORMAT_TEMPLATES = 1
const FORMAT_VERBATIM = 2
const ZSTD_LEVEL = 9
const KIND_CODE: Record<MetricKind, number> = { hardware: 1, network: 2 }
const CODE_KIND: Record<number, MetricKind> = { 1: 'hardware', 2: 'network' }

/** Encodes a block's entries (any order; kept in id order). */
export function encodeBlock(entries: BlockEntry[]): Uint8Array {
  const sorted = [...entries].sort((a, b) => a.id - b.id || KIND_CODE[a.kind] - KIND_CODE[b.kind])
  const plain = encodeTemplates(sorted)
  if (roundTrips(plain, sorted)) return Bun.zstdCompressSync(plain, { level: ZSTD_LEVEL })
  return Bun.zstdCompressSync(encodeVerbatim(sorted), { level: ZSTD_LEVEL })
}

function writeHeader(out: ByteWriter, format: number, sorted: BlockEntry[]) {
  out.byte(format)
  out.varint(sorted.length)
  let prev = 0
  for (const e of sorted) {
    out.varint(e.id - prev)
    prev = e.id
    out.byte(KIND_CODE[e.kind])
  }
}

function encodeVerbatim(sorted: BlockEntry[]): Uint8Array {
  const out = new ByteWriter()
  writeHeader(out, FORMAT_VERBATIM, sorted)
  for (const e of sorted) out.string(e.text)
  return out.done()
}

function encodeTemplates(sorted: BlockEntry[]): Uint8Array {
  const templates = new Map<string, number>()
  const which: number[] = []
  const split = sorted.map((e) => splitNumbers(e.text))
  let total = 0
  for (const s of split) {
    let t = templates.get(s.template)
    if (t === undefined) templates.set(s.template, (t = templates.size))
    which.push(t)
    total += s.numbers.length
  }
  const out = new ByteWriter()
  writeHeader(out, FORMAT_TEMPLATES, sorted)
  out.varint(templates.size)
  for (const t of templates.keys()) out.string(t)
  for (const t of which) out.varint(t)
  // each number against the same slot of the previous entry of its template and kind: the
  // difference where that one is an integer (counters: the difference has mostly zero bits) and
  // adding it back gives the very number, else the XOR of the bits (as 32-bit halves: 64-bit
  // BigInt arithmetic is far slower). Where the difference does not add back, the number is
  // listed as an exception and XORed.
  const values = new Float64Array(total)
  const bits = new Uint32Array(values.buffer)
  const codedF = new Float64Array(total)
  const coded = new Uint32Array(codedF.buffer)
  const exceptions: number[] = []
  const first = new Map<number, number>()
  let at = 0
  for (let i = 0; i < sorted.length; i++) {
    const nums = split[i]!.numbers
    const key = which[i]! * 4 + KIND_CODE[sorted[i]!.kind]
    const ref = first.get(key)
    for (let k = 0; k < nums.length; k++) values[at + k] = nums[k]!
    for (let k = 0; k < nums.length; k++) {
      const x = at + k
      if (ref === undefined) codedF[x] = values[x]!
      else {
        const r = values[ref + k]!
        const d = values[x]! - r
        if (Number.isSafeInteger(r) && Object.is(r + d, values[x])) codedF[x] = d
        else {
          if (Number.isSafeInteger(r)) exceptions.push(x)
          coded[2 * x] = bits[2 * x]! ^ bits[2 * (ref + k)]!
          coded[2 * x + 1] = bits[2 * x + 1]! ^ bits[2 * (ref + k) + 1]!
        }
      }
    }
    first.set(key, at)
    at += nums.length
  }
  out.varint(exceptions.length)
  let last = 0
  for (const x of exceptions) {
    out.varint(x - last)
    last = x
  }
  out.bytes(shuffle(new Uint8Array(coded.buffer)))
  return out.done()
}

/** A decoded block: the texts are built only for the entries asked for. */
export interface DecodedBlock {
  /** the stored text of a row's part, or undefined when the block holds none */
  text(id: number, kind: MetricKind): string | undefined
  /**
   * The same text written into `out` as the members of the object being written there (as
   * JsonBytes#members writes a string's), without making it a string; nothing when the block
   * holds none.
   */
  writeMembers(id: number, kind: MetricKind, out: JsonBytes): void
  /** every entry, in id order */
  entries(): BlockEntry[]
}

export function decodeBlock(data: Uint8Array): DecodedBlock {
  return decodePayload(Bun.zstdDecompressSync(data))
}

function decodePayload(plain: Uint8Array): DecodedBlock {
  const r = new ByteReader(plain, 'metric block')
  const format = r.byte()
  const n = r.varint()
  const ids = new Array<number>(n)
  const codes = new Uint8Array(n)
  // per kind code, entry by id: numeric keys (a key string per entry cost more than the lookups)
  const index = [new Map<number, number>(), new Map<number, number>(), new Map<number, number>()]
  let prev = 0
  for (let i = 0; i < n; i++) {
    prev += r.varint()
    ids[i] = prev
    const code = r.byte()
    if (!CODE_KIND[code]) throw new Error('metric block holds an unknown kind')
    codes[i] = code
    index[code]!.set(prev, i)
  }
  let texts: EntryTexts
  if (format === FORMAT_VERBATIM) {
    const verbatim = Array.from({ length: n }, () => r.string())
    texts = { text: (i) => verbatim[i]!, write: (i, out) => out.raw(verbatim[i]!) }
  } else if (format === FORMAT_TEMPLATES) texts = templatedTexts(r, n, codes)
  else throw new Error(`metric block format ${format} is unknown`)
  const textAt = texts.text
  return {
    text(id, kind) {
      const i = index[KIND_CODE[kind]]!.get(id)
      return i === undefined ? undefined : textAt(i)
    },
    writeMembers(id, kind, out) {
      const i = index[KIND_CODE[kind]]!.get(id)
      if (i === undefined) return
      const start = out.written
      texts.write(i, out)
      out.asMembers(start)
    },
    entries: () => ids.map((id, i) => ({ id, kind: CODE_KIND[codes[i]!]!, text: textAt(i) })),
  }
}

/** An entry's text, by its place in the block: as a string, or written into an answer. */
interface EntryTexts {
  text(i: number): string
  write(i: number, out: JsonBytes): void
}

/**
 * The texts of a templated block, each built when first asked: an entry's numbers are decoded
 * with the chain of entries they are coded against (the earlier ones of its template and kind),
 * each entry once, into one array for the block (no array per entry).
 */
function templatedTexts(r: ByteReader, n: number, codes: Uint8Array): EntryTexts {
  const templates = Array.from({ length: r.varint() }, () => r.string())
  const slots = templates.map(countSlots)
  const which = new Uint32Array(n)
  const starts = new Float64Array(n)
  let total = 0
  for (let i = 0; i < n; i++) {
    const t = r.varint()
    if (t >= templates.length) throw new Error('metric block names an unknown template')
    which[i] = t
    starts[i] = total
    total += slots[t]!
  }
  // the numbers whose difference did not add back: XOR-coded though their reference is an integer
  const exception = new Uint8Array(total)
  for (let i = r.varint(), x = 0; i > 0; i--) {
    x += r.varint()
    if (x < total) exception[x] = 1
  }
  const planes = r.bytes(total * 8)
  // per entry, the entry its numbers are coded against (the previous of its template and kind), or -1
  const ref = new Int32Array(n)
  const previous = new Map<number, number>()
  for (let i = 0; i < n; i++) {
    const key = which[i]! * 4 + codes[i]!
    ref[i] = previous.get(key) ?? -1
    previous.set(key, i)
  }
  const values = new Float64Array(total)
  const words = new Uint32Array(values.buffer)
  const decoded = new Uint8Array(n)
  /** one entry's numbers out of the byte planes, then added to or XORed with its reference's */
  const decodeOne = (x: number) => {
    const s = starts[x]!
    const m = slots[which[x]!]!
    // each number's 8 bytes from the 8 planes, as its two 32-bit halves (little-endian, as they were written)
    for (let p = s; p < s + m; p++) {
      words[2 * p] = planes[p]! | (planes[total + p]! << 8) | (planes[2 * total + p]! << 16) | (planes[3 * total + p]! << 24)
      words[2 * p + 1] = planes[4 * total + p]! | (planes[5 * total + p]! << 8) | (planes[6 * total + p]! << 16) | (planes[7 * total + p]! << 24)
    }
    const f = ref[x]!
    if (f === -1) return
    const fs = starts[f]!
    for (let j = 0; j < m; j++) {
      const k = values[fs + j]!
      if (Number.isSafeInteger(k) && exception[s + j] === 0) values[s + j] = k + values[s + j]!
      else {
        words[2 * (s + j)] = words[2 * (s + j)]! ^ words[2 * (fs + j)]!
        words[2 * (s + j) + 1] = words[2 * (s + j) + 1]! ^ words[2 * (fs + j) + 1]!
      }
    }
  }
  const chain: number[] = []
  const ensure = (i: number) => {
    for (let e = i; e !== -1 && decoded[e] === 0; e = ref[e]!) chain.push(e)
    while (chain.length) {
      const x = chain.pop()!
      decodeOne(x)
      decoded[x] = 1
    }
  }
  const strings = new Array<TemplateText | undefined>(templates.length)
  const bytes = new Array<TemplateBytes | undefined>(templates.length)
  return {
    text(i) {
      ensure(i)
      const t = which[i]!
      return (strings[t] ??= templateText(templates[t]!))(values, starts[i]!)
    },
    write(i, out) {
      ensure(i)
      const t = which[i]!
      ;(bytes[t] ??= templateBytes(templates[t]!))(out, values, starts[i]!)
    },
  }
}

/** The payload decodes to exactly these entries (a raw NUL in a text, for one, would not). */
function roundTrips(plain: Uint8Array, sorted: BlockEntry[]): boolean {
  let back: BlockEntry[]
  try {
    back = decodePayload(plain).entries()
  } catch {
    return false
  }
  return back.length === sorted.length && back.every((e, i) => e.id === sorted[i]!.id && e.kind === sorted[i]!.kind && e.text === sorted[i]!.text)
}
