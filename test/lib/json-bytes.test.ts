import { describe, expect, test } from 'bun:test'
import { JsonBytes } from '../../src/lib/json-bytes'

const text = (w: JsonBytes) => new TextDecoder().decode(w.take())

/** A small seeded generator (mulberry32), so a failure names an input that reproduces. */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('JsonBytes.number', () => {
  const w = new JsonBytes(8)
  const spelled = (v: unknown) => text(w.reset().number(v))

  test('spells edge cases as JSON.stringify does', () => {
    const cases = [
      0,
      -0,
      1,
      -1,
      7,
      10,
      999_999_999,
      1e9,
      1e9 + 1,
      -1e9,
      4_294_967_296,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      2 ** 53,
      1e21,
      1e22,
      123e300,
      0.1,
      0.2,
      0.1 + 0.2,
      1 / 3,
      -2 / 3,
      0.5,
      1.005,
      4.35,
      99.99,
      12.345678,
      0.000001,
      1e-6,
      1.5e-6,
      1e-7,
      5e-324,
      0.999999,
      0.9999995,
      999_999.999_999_5,
      2 ** 50 / 1e6,
      123_456_789.123,
      1_000_000.5,
      -0.25,
    ]
    for (const v of cases) expect(`${v}: ${spelled(v)}`).toBe(`${v}: ${JSON.stringify(v)}`)
  })

  test('writes null for what JSON has no number for', () => {
    for (const v of [NaN, Infinity, -Infinity, null, undefined, '1', true]) expect(spelled(v)).toBe('null')
  })

  test('matches JSON.stringify on 100,000 values of each shape a collector sends', () => {
    const r = seeded(20261121)
    const shapes: [string, () => number][] = [
      ['any magnitude', () => (r() - 0.5) * 10 ** Math.floor(r() * 40 - 15)],
      ['a few decimals', () => Math.round((r() - 0.5) * 10 ** Math.floor(r() * 12)) / 10 ** Math.floor(r() * 7)],
      ['a large counter', () => Math.floor(r() * 2 ** 53)],
      ['a float32 reading', () => new Float32Array([r() * 200 - 50])[0]!],
      ['a percentage', () => (Math.round(r() * 1000) / 10) * (1 + Math.floor(r() * 3))],
      ['an integer of any width', () => Math.floor(r() * 10 ** (1 + Math.floor(r() * 16)))],
    ]
    for (const [shape, next] of shapes) {
      for (let i = 0; i < 100_000; i++) {
        const v = next()
        if (spelled(v) !== JSON.stringify(v)) expect(`${shape}: ${v} → ${spelled(v)}`).toBe(`${shape}: ${v} → ${JSON.stringify(v)}`)
      }
    }
  })
})

describe('JsonBytes.isoDate', () => {
  const w = new JsonBytes(4)
  const spelled = (ms: number) => text(w.reset().isoDate(ms))
  const expected = (ms: number) => JSON.stringify(new Date(ms).toISOString())

  test('spells instants as Date#toISOString does, quoted', () => {
    const cases = [
      0,
      -1,
      1,
      86_399_999,
      86_400_000,
      Date.UTC(2000, 1, 29),
      Date.UTC(1900, 1, 28, 23, 59, 59, 999),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10_000, 0, 1),
      Date.UTC(0, 0, 1) - 1,
      Date.UTC(-1, 0, 1),
      -62_167_219_200_000,
      8.64e15,
      -8.64e15,
    ]
    for (const ms of cases) expect(spelled(ms)).toBe(expected(ms))
  })

  test('matches toISOString over 200,000 random instants from 1 BC to AD 11000', () => {
    const r = seeded(7)
    for (let i = 0; i < 200_000; i++) {
      const ms = Math.floor(-62_200_000_000_000 + r() * 409_000_000_000_000)
      if (spelled(ms) !== expected(ms)) expect(`${ms} → ${spelled(ms)}`).toBe(`${ms} → ${expected(ms)}`)
    }
  })
})

describe('JsonBytes', () => {
  test('splices the members of a stored object, as UTF-8', () => {
    const w = new JsonBytes(2)
    const obj = (stored: unknown) => text(w.reset().bytes(JsonBytes.constant('{"a":1')).members(stored).byte(125))
    expect(obj('{"b":[1,{"c":"é"}],"d":"\u{1F600}"}')).toBe('{"a":1,"b":[1,{"c":"é"}],"d":"\u{1F600}"}')
    expect(obj('{}')).toBe('{"a":1}')
    expect(obj(null)).toBe('{"a":1}')
    expect(JSON.parse(obj('{"q":"say \\"hi\\""}'))).toEqual({ a: 1, q: 'say "hi"' })
  })

  test('pieces of text with numbers between them are written as String() writes each number', () => {
    const parts = ['{"a":', ',"é":[', ',', ',', ',', ']}']
    const flat = JsonBytes.constant(parts.join(''))
    const ends = new Int32Array(parts.length)
    for (let k = 0, e = 0; k < parts.length; k++) ends[k] = e += JsonBytes.constant(parts[k]!).length
    const values = Float64Array.from([7, 2 ** 53 + 2, -0.125, 0.1 + 0.2, 5e-324, 9])
    const w = new JsonBytes(4)
    expect(text(w.pieces(flat, ends, values, 0))).toBe(`{"a":7,"é":[${[2 ** 53 + 2, -0.125, 0.1 + 0.2, 5e-324].map(String).join(',')}]}`)
    expect(text(w.pieces(flat, ends, values, 1))).toBe(`{"a":${2 ** 53 + 2},"é":[${[-0.125, 0.1 + 0.2, 5e-324, 9].map(String).join(',')}]}`)
  })

  test('pieces room for the longest numbers, written back to back past a small first buffer', () => {
    const longest = [-Number.MAX_VALUE, -1.2345678901234567e-308, -Number.MIN_VALUE, -(2 ** 53 + 2), -1e21, -123_456.789_012_345_67]
    const values = Float64Array.from(Array.from({ length: 60 }, (_, i) => longest[i % longest.length]!))
    const flat = JsonBytes.constant(`[${','.repeat(values.length - 1)}]`)
    const ends = Int32Array.from({ length: values.length + 1 }, (_, k) => k + 1)
    const w = new JsonBytes(4)
    const written = text(w.pieces(flat, ends, values, 0))
    expect(written).toBe(`[${[...values].map(String).join(',')}]`)
    expect(JSON.parse(written)).toEqual([...values])
  })

  test('an object written in pieces becomes the members of the enclosing one, as a string of it would', () => {
    const w = new JsonBytes(4)
    const piece = JsonBytes.constant('xx{"b":[1,2],"c":"é"}yy')
    const obj = (from: number, to: number) => {
      w.reset().bytes(JsonBytes.constant('{"a":1'))
      const start = w.written
      w.bytes(piece.subarray(from, to))
      return text(w.asMembers(start).byte(125))
    }
    expect(obj(2, piece.length - 2)).toBe('{"a":1,"b":[1,2],"c":"é"}')
    // an empty object adds nothing
    expect(text(w.reset().byte(123).byte(34).byte(97).byte(34).byte(58).integer(1).asMembers(w.written).byte(125))).toBe('{"a":1}')
    w.reset().raw('{"a":1')
    const start = w.written
    expect(text(w.raw('{}').asMembers(start).byte(125))).toBe('{"a":1}')
  })

  test('grows past its first buffer without losing bytes, and each answer is its own copy', () => {
    const w = new JsonBytes(16)
    const long = 'x'.repeat(50_000)
    const first = w.byte(91).raw(JSON.stringify(long)).byte(44).integer(12_345_678_901).byte(93).take()
    const second = w.raw('"short"').take()
    expect(JSON.parse(new TextDecoder().decode(first))).toEqual([long, 12_345_678_901])
    expect(new TextDecoder().decode(second)).toBe('"short"')
    w.raw('"overwrites the buffer"').take()
    expect(new TextDecoder().decode(second)).toBe('"short"')
  })

  test('reset drops what was not taken', () => {
    const w = new JsonBytes()
    w.raw('garbage')
    expect(text(w.reset().integer(-42))).toBe('-42')
  })
})
