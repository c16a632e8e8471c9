import { describe, expect, test } from 'bun:test'
import { float32Figure, pack, RAW_WIDTH, ROLLUP_WIDTH, rollUp, unpack } from '../../../src/modules/containers/containers.pack'

const raw = (seq: number, cpu: number | null, mem: number | null) => ({ seq, values: [cpu, mem, 100, 1, 2, 3, 4, 5] })

describe('packed container moments', () => {
  test('round trip: nulls stay null, 36 bytes a container plus the header', () => {
    const data = pack([raw(1, 12.5, null), raw(7, 0, 2048)], RAW_WIDTH)
    expect(data.byteLength).toBe(1 + 2 * 36)
    expect(unpack(data)).toEqual([raw(1, 12.5, null), raw(7, 0, 2048)])
    expect(unpack(data, 7)).toEqual([raw(7, 0, 2048)])
    expect(unpack(data, 3)).toEqual([])
  })

  test('a rollup averages each figure over the moments that had it, and keeps the maximum of CPU and memory', () => {
    const bucket = rollUp([pack([raw(1, 10, 100)], RAW_WIDTH), pack([raw(1, 30, null), raw(2, 5, 5)], RAW_WIDTH)])
    const [one, two] = unpack(bucket)
    expect(one!.values).toHaveLength(ROLLUP_WIDTH)
    expect(one).toEqual({ seq: 1, values: [20, 100, 100, 1, 2, 3, 4, 5, 30, 100] })
    expect(two).toEqual({ seq: 2, values: [5, 5, 100, 1, 2, 3, 4, 5, 5, 5] })
    // an hour from minutes: the minutes' maxima, not their averages
    const hour = rollUp([bucket, pack([{ seq: 1, values: [40, 50, 100, 1, 2, 3, 4, 5, 90, 60] }], ROLLUP_WIDTH)])
    expect(unpack(hour, 1)[0]!.values.slice(-2)).toEqual([90, 100])
  })
})

describe('a float32 figure read back', () => {
  test('is the shortest decimal that is the same float32, integers as they are', () => {
    expect(float32Figure(Math.fround(12.3))).toBe(12.3)
    expect(float32Figure(Math.fround(0.1))).toBe(0.1)
    expect(float32Figure(Math.fround(99.99))).toBe(99.99)
    expect(float32Figure(Math.fround(1_523_456_789))).toBe(Math.fround(1_523_456_789))
    expect(float32Figure(Math.fround(0.000123))).toBe(0.000123)
    for (const v of [0, 7, -3, Number.NaN, Number.POSITIVE_INFINITY]) expect(Object.is(float32Figure(v), v)).toBe(true)
    expect([float32Figure(null), float32Figure(undefined)]).toEqual([null, null])
  })

  test('always reads back as the very float32 stored, over random figures of every shape', () => {
    let seed = 5
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    for (let i = 0; i < 200_000; i++) {
      const r = rand()
      const x = r < 0.3 ? Math.round(rand() * 10_000) / 100 : r < 0.6 ? rand() * 1e6 : r < 0.8 ? rand() * 1e-3 : -rand() * 1e4
      const v = Math.fround(x)
      const f = float32Figure(v) as number
      if (Math.fround(f) !== v || String(f).length > String(v).length) expect([x, v, f]).toEqual([x, v, v])
    }
  })
})
