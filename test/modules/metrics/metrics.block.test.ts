import { describe, expect, test } from 'bun:test'
import { JsonBytes } from '../../../src/lib/json-bytes'
import { decodeBlock, encodeBlock, type BlockEntry } from '../../../src/modules/metrics/metrics.block'
import { splitNumbers } from '../../../src/modules/metrics/metrics.templates'
import { evolve, largeServer, rng } from '../../../scripts/bench/storage-samples'
import { toSampleRow } from '../../../src/modules/metrics/metrics.rows'
import { hardwareSample, networkSample } from '../../helpers/samples'

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

/** Any finite double, from random bits: subnormals, huge exponents, every mantissa. */
function anyDouble(r: () => number): number {
  const b = new Uint32Array(2)
  for (;;) {
    b[0] = Math.floor(r() * 2 ** 32)
    b[1] = Math.floor(r() * 2 ** 32)
    const v = new Float64Array(b.buffer)[0]!
    if (Number.isFinite(v)) return v
  }
}

function anyNumber(r: () => number): number {
  const pick = r()
  if (pick < 0.3) return anyDouble(r)
  if (pick < 0.5) return Math.floor((r() - 0.5) * 2 ** 53) // safe integers, counters
  if (pick < 0.7) return Math.round(r() * 1e4) / 100 // a gauge sent at two decimals
  if (pick < 0.8) return [0, -1, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 53 + 2][Math.floor(r() * 8)]!
  return Math.floor(r() * 100)
}

const CHARS = ['a', 'Z', '0', '-', '.', 'e', '"', '\\', '\n', '\u0000', '\u0001', 'é', '🙂', '\u2028', ' ', '{', '}', '[', ']', ':', ',']
const anyString = (r: () => number) => Array.from({ length: Math.floor(r() * 8) }, () => CHARS[Math.floor(r() * CHARS.length)]).join('')

function anyJson(r: () => number, depth: number): Json {
  const pick = r()
  if (depth > 3 || pick < 0.45) return anyNumber(r)
  if (pick < 0.55) return anyString(r)
  if (pick < 0.6) return r() < 0.5
  if (pick < 0.65) return null
  if (pick < 0.8) return Array.from({ length: Math.floor(r() * 5) }, () => anyJson(r, depth + 1))
  const o: Record<string, Json> = {}
  for (let i = Math.floor(r() * 5); i > 0; i--) o[r() < 0.2 ? String(Math.floor(r() * 10)) : anyString(r) || 'k'] = anyJson(r, depth + 1)
  return o
}

/** A rest text as ingest stores it: JSON.stringify of the fields outside the hot columns. */
const restOf = (r: () => number) => JSON.stringify(anyJson(r, 0) as object)

const utf8 = new TextDecoder()
/** A row's object as a history page writes it: its own member, then the stored text's members. */
const spliced = (write: (out: JsonBytes) => unknown) => {
  const out = new JsonBytes(16).raw('{"id":1')
  write(out)
  return utf8.decode(out.byte(125).take())
}

function roundTrip(entries: BlockEntry[]) {
  const back = decodeBlock(encodeBlock(entries)).entries()
  const sorted = [...entries].sort((a, b) => a.id - b.id || a.kind.localeCompare(b.kind))
  expect(back).toEqual(sorted)
  const block = decodeBlock(encodeBlock(entries))
  for (const e of entries) expect(block.text(e.id, e.kind)).toBe(e.text)
  // written straight into an answer as bytes: the same characters as the text spliced in as a string
  const fresh = decodeBlock(encodeBlock(entries))
  for (const e of [...entries].reverse()) {
    expect(spliced((out) => fresh.writeMembers(e.id, e.kind, out))).toBe(spliced((out) => out.members(e.text)))
  }
}

describe('the long-lived block of nested fields', () => {
  test('random JSON texts come back character for character: floats bit for bit, nested objects, strings with escapes', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = rng(seed)
      const entries: BlockEntry[] = []
      let id = Math.floor(r() * 1e9)
      for (let i = 0; i < 40; i++) {
        id += 1 + Math.floor(r() * 3)
        entries.push({ id, kind: 'hardware', text: restOf(r) })
        if (r() < 0.6) entries.push({ id, kind: 'network', text: restOf(r) })
      }
      roundTrip(entries)
      // parsed back, the values are the same numbers (bit for bit) and the same objects
      for (const e of decodeBlock(encodeBlock(entries)).entries()) {
        const original = entries.find((x) => x.id === e.id && x.kind === e.kind)!
        expect(JSON.parse(e.text)).toEqual(JSON.parse(original.text))
      }
    }
  })

  test('samples that share their shape (the usual case) and ones that change it come back exactly', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed)
      const shape = anyJson(r, 0)
      const entries: BlockEntry[] = []
      for (let i = 0; i < 60; i++) {
        // the same structure with new numbers, now and then a different one
        const walk = (x: Json): Json =>
          typeof x === 'number'
            ? anyNumber(r)
            : Array.isArray(x)
              ? x.map(walk)
              : x && typeof x === 'object'
                ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]))
                : x
        entries.push({ id: i + 1, kind: 'hardware', text: JSON.stringify(r() < 0.1 ? anyJson(r, 0) : { shape: walk(shape), extra_field: walk(shape) }) })
      }
      roundTrip(entries)
    }
  })

  test('collector samples (the bench’s real-sample walk, a large server, the test helpers) come back exactly', () => {
    const base = { hardware: hardwareSample(1), network: networkSample(1) } as never
    for (const b of [base, largeServer(base)]) {
      const samples = evolve(b, 60, 0, 10_000, 7)
      const entries: BlockEntry[] = []
      samples.forEach((s, i) => {
        for (const kind of ['hardware', 'network'] as const) {
          const rest = toSampleRow(kind, s[kind] as Record<string, unknown>, 0).rest
          if (rest) entries.push({ id: i + 1, kind, text: rest })
        }
      })
      roundTrip(entries)
    }
  })

  test('a number is cut out of the text only where printing it again gives the same characters', () => {
    expect(splitNumbers('{"a":1.50,"b":-0,"c":1E3,"d":12,"e":"7"}')).toEqual({ template: '{"a":1.50,"b":-0,"c":1E3,"d":\u0000,"e":"7"}', numbers: [12] })
    // a text that is not what JSON.stringify writes still comes back as it was
    roundTrip([{ id: 1, kind: 'hardware', text: '{"raw":"\u0000","n": 1.0 ,"m":[1e5]}' }])
  })

  test('a block names a part that it does not hold as absent, and writes nothing for it into an answer', () => {
    const block = decodeBlock(encodeBlock([{ id: 5, kind: 'hardware', text: '{"a":1}' }]))
    expect(block.text(5, 'network')).toBeUndefined()
    expect(block.text(6, 'hardware')).toBeUndefined()
    expect(spliced((out) => block.writeMembers(5, 'network', out))).toBe('{"id":1}')
    expect(spliced((out) => block.writeMembers(5, 'hardware', out))).toBe('{"id":1,"a":1}')
  })

  test('texts kept verbatim and an empty object are written into an answer as their strings are', () => {
    const entries: BlockEntry[] = [
      { id: 1, kind: 'hardware', text: '{}' },
      { id: 2, kind: 'hardware', text: '{"a":[1.5,"é🙂"],"b":{"c":-0.25}}' },
    ]
    roundTrip(entries)
    // a raw NUL in a text is never cut into a template: the block keeps its texts verbatim (format 2)
    const verbatim: BlockEntry[] = [...entries, { id: 3, kind: 'network', text: `{"raw":"${String.fromCharCode(0)}","n":7}` }]
    expect(Bun.zstdDecompressSync(encodeBlock(verbatim))[0]).toBe(2)
    roundTrip(verbatim)
  })

  test('texts are written back as String() writes each number, at the edges of the integer fast path, in templates of one-byte characters and of wider ones', () => {
    const edges = [0, 9, 10, 99, 100, 999_999_999, 1e9, 1e9 + 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 123_456_789_012]
    const numbers = [...edges, ...edges.map((x) => -x - 1), 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 0.1, -2.5, 1e-7, 5e-324, 1e21, 123.456, Number.MAX_VALUE]
    for (const label of ['plain', 'café', '🙂 wide']) {
      const entries: BlockEntry[] = []
      for (let i = 0; i < 12; i++) {
        // the numbers move from one sample to the next: coded as differences and as XORs
        const values = numbers.map((x, k) => (i % 3 === 0 ? x : k % 2 ? x + i : x * (1 + i / 7)))
        entries.push({ id: 100 + i, kind: i % 2 ? 'network' : 'hardware', text: JSON.stringify({ label, values, nested: { v: values.slice(0, 5) } }) })
      }
      roundTrip(entries)
      // coded with templates (format 1): the encoder keeps texts verbatim (2) when its own decoding differs
      expect(Bun.zstdDecompressSync(encodeBlock(entries))[0]).toBe(1)
    }
  })
})
