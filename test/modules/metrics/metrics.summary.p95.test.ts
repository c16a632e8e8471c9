import { describe, expect, test } from 'bun:test'
import { P95Values, p95Of } from '../../../src/modules/metrics/metrics.summary.p95'

const W = 600_000

describe("a summary's p95 values gathered per bucket of the answering tier", () => {
  test('each bucket gives one average per field, weighted by the counts of its parts', () => {
    const vals: number[][] = [[], []]
    const p = new P95Values(W, vals)
    p.row(W - 20_000) // the window's ragged start: a bucket's last 20 s
    p.add(0, 4, 1)
    p.row(W - 10_000)
    p.add(0, 8, 1)
    p.add(1, 1, 1)
    p.row(W) // the next bucket, from two finer rows of 6 and 2 values
    p.add(0, 10, 6)
    p.row(W + 60_000)
    p.add(0, 20, 2)
    p.add(1, 3, 2)
    p.close()
    expect(vals).toEqual([
      [6, (10 * 6 + 20 * 2) / 8],
      [1, 3],
    ])
  })

  test("a bucket of one part keeps that part's average as it is", () => {
    const vals: number[][] = [[]]
    const p = new P95Values(W, vals)
    p.row(0)
    p.add(0, 0.1 + 0.2, 7) // (0.1 + 0.2) · 7 / 7 is not 0.1 + 0.2
    p.close()
    expect(vals[0]).toEqual([0.1 + 0.2])
    p.close()
    expect(vals[0]).toEqual([0.1 + 0.2])
  })
})

describe("a field's p95", () => {
  const byComparator = (vals: number[]) => {
    const sorted = [...vals].sort((p, q) => p - q)
    return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)]!
  }

  test('is the value at rank ⌈0.95·n⌉ in ascending order', () => {
    expect(p95Of([5])).toBe(5)
    expect(p95Of([3, 1, 2])).toBe(3)
    // 20 values: rank 19, the second largest
    expect(p95Of(Array.from({ length: 20 }, (_, i) => 20 - i))).toBe(19)
    // 100 values: rank 95
    expect(p95Of(Array.from({ length: 100 }, (_, i) => i + 1))).toBe(95)
  })

  test('equals the numeric sort it replaced, over random values with negatives, fractions and repeats', () => {
    let seed = 7
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    for (let round = 0; round < 500; round++) {
      const n = 1 + Math.floor(rand() * 400)
      const vals = Array.from({ length: n }, () => {
        const r = rand()
        return r < 0.2 ? Math.floor(rand() * 10) : r < 0.4 ? -rand() * 1e6 : r < 0.5 ? 1e15 * rand() : rand() * 100
      })
      // the same number either way (JSON writes -0 and 0 alike, and none is NaN)
      expect(p95Of(vals) === byComparator(vals)).toBe(true)
    }
  })
})
