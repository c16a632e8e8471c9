import { describe, expect, test } from 'bun:test'
import { sparkPath } from '../../web/src/charts/spark'

describe('sparkline path', () => {
  test.each<[(number | null)[], string]>([
    [[], ''],
    [[null, null], ''],
    [[0, 100], 'M0.0 10.0L100.0 0.0'],
    [[50], 'M0.0 5.0h0'],
    [[0, null, 100], 'M0.0 10.0h0M100.0 0.0h0'],
    [[150, -5], 'M0.0 0.0L100.0 10.0'],
    [[0, Number.NaN, 50, 50], 'M0.0 10.0h0M66.7 5.0L100.0 5.0'],
    [[null, 20, 30, null], 'M33.3 8.0L66.7 7.0'],
  ])('sparkPath(%p)', (values, d) => expect(sparkPath(values, 100, 10)).toBe(d))
})
