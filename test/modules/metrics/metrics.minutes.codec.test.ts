import { describe, expect, test } from 'bun:test'
import { zstdCompressSync } from 'node:zlib'
import { decodeMinutes, encodeMinutes, packMinutes, type NestedMinutes, type PackedMinutes } from '../../../src/modules/metrics/metrics.minutes.codec'
import { seeded } from './sample-bodies'

const T0 = Date.UTC(2026, 0, 1)
const ODD = [0, -0, 1e21, 1e-7, -1.5e-300, 2 ** 53 + 2, -(2 ** 60), Number.MAX_VALUE, Number.MIN_VALUE, Number.NaN, Infinity, 0.1 + 0.2, 123456789.12345679]

/** Minutes of one block as a sealing builds them, with values of every sort and names of any text. */
function randomMinutes(r: ReturnType<typeof seeded>, odd: boolean): NestedMinutes {
  const names = Array.from({ length: r.int(40) }, (_, i) =>
    r.pick([`cpu_per_core:${i}`, `disk_partitions:/mnt/ü${i}`, `temperatures:😀:${i}`, `x${i}`, `interfaces:\u0000${i}`]),
  )
  const value = () => {
    switch (r.int(odd ? 5 : 4)) {
      case 0:
        return Math.round(r.next() * 10_000) / 100 // two decimals, as collectors round
      case 1:
        return r.int(1_000_000)
      case 2:
        return -r.next() * 1000
      case 3:
        return Number((r.next() * 100).toFixed(r.int(8)))
      default:
        return r.pick(ODD)
    }
  }
  const kind = (families: number) => {
    let ts = T0 + r.int(1_000_000)
    return Array.from({ length: r.int(12) }, () => {
      ts += r.next() < 0.1 ? -r.int(5000) : r.int(60_000)
      return {
        ts,
        families: Array.from({ length: families - r.int(2) }, () =>
          r.next() < 0.3 || names.length === 0 ? null : Array.from({ length: r.int(6) }, () => [r.int(names.length), value()]).flat(),
        ),
      }
    })
  }
  return { names, kinds: { hardware: kind(6), network: kind(2) } }
}

/** Every value's bits, so -0, NaN and the last bit of a mantissa count. */
const bits = (p: PackedMinutes) =>
  Object.fromEntries(
    Object.entries(p.kinds).map(([k, m]) => [
      k,
      { ...m, ts: Array.from(m.ts), at: Array.from(m.at), name: Array.from(m.name), value: Array.from(new Uint32Array(Float64Array.from(m.value).buffer)) },
    ]),
  )

describe('nested minutes stored as columns (metrics.minutes.codec.ts)', () => {
  test('every time, name and value comes back bit for bit, for any minutes', () => {
    const r = seeded(20261128)
    for (let round = 0; round < 500; round++) {
      const m = randomMinutes(r, true)
      const back = decodeMinutes(encodeMinutes(m))
      const want = packMinutes(m)
      expect(back.names).toEqual(m.names)
      expect(bits(back)).toEqual(bits(want))
    }
  })

  test('minutes an earlier release stored as JSON read into the same columns', () => {
    const r = seeded(7)
    for (let round = 0; round < 200; round++) {
      const m = randomMinutes(r, false)
      const stored = zstdCompressSync(JSON.stringify(m))
      expect(bits(decodeMinutes(stored))).toEqual(bits(packMinutes(m)))
      expect(decodeMinutes(stored).names).toEqual(m.names)
    }
  })

  test('a family absent from a minute, or stored as null, has no series; a minute with fewer families has none past them', () => {
    const m: NestedMinutes = {
      names: ['a', 'b'],
      kinds: {
        hardware: [
          { ts: T0, families: [[1, 2.5], null, [0, 3, 1, 4]] },
          { ts: T0 + 60_000, families: [[0, 1]] },
        ],
        network: [],
      },
    }
    const h = decodeMinutes(encodeMinutes(m)).kinds.hardware
    expect(h.families).toBe(3)
    expect(Array.from(h.at)).toEqual([0, 1, 1, 3, 4, 4, 4])
    expect(Array.from(h.name)).toEqual([1, 0, 1, 0])
    expect(Array.from(h.value)).toEqual([2.5, 3, 4, 1])
    expect(decodeMinutes(encodeMinutes(m)).kinds.network.ts.length).toBe(0)
  })

  test('bytes cut short, or naming a series past the names, are refused with an error, never read as other minutes', () => {
    const r = seeded(3)
    const m = randomMinutes(r, true)
    m.kinds.hardware.push({ ts: T0, families: [[0, 1.25]] })
    m.names.push('n')
    const plain = Bun.zstdDecompressSync(encodeMinutes(m))
    for (const cut of [1, 2, Math.floor(plain.length / 2), plain.length - 1]) {
      expect(() => decodeMinutes(Bun.zstdCompressSync(plain.subarray(0, cut)))).toThrow(/nested minutes/)
    }
    const one: NestedMinutes = { names: ['a'], kinds: { hardware: [{ ts: T0, families: [[0, 1]] }], network: [] } }
    const bytes = Bun.zstdDecompressSync(encodeMinutes(one))
    // the header (40 bytes), the minute's time and value (8 each), its series count (4), then its name's index
    const bad = Uint8Array.from(bytes)
    expect(bad[60]).toBe(0)
    bad[60] = 5
    expect(() => decodeMinutes(Bun.zstdCompressSync(bad))).toThrow(/without a name/)
  })
})
