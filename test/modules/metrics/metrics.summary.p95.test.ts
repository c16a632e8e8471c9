import { describe, expect, test } from 'bun:test'
import { P95Values } from '../../../src/modules/metrics/metrics.summary.p95'

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
