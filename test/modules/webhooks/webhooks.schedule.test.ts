import { describe, expect, test } from 'bun:test'
import { MAX_ATTEMPTS, MAX_RETRY_AFTER_MS, RETRY_DELAYS_MS, retryDelay } from '../../../src/modules/webhooks/webhooks.schedule'

const S = 1000
const MIN = 60 * S
const H = 60 * MIN

describe("the webhooks' retry schedule", () => {
  test('at once, then up to 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h; ten attempts in all', () => {
    expect([...RETRY_DELAYS_MS]).toEqual([5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H])
    expect(MAX_ATTEMPTS).toBe(10)
    // full jitter: the top of the draw is the step itself
    expect(Array.from({ length: 9 }, (_, i) => retryDelay(i + 1, 1))).toEqual([...RETRY_DELAYS_MS])
    expect(retryDelay(2, 0.5)).toBe(150 * S)
  })

  test.each([
    [0, 'nothing failed yet'],
    [10, 'the tenth attempt was the last'],
    [11, 'past the end'],
  ])('no retry after %p failures (%s)', (failed) => {
    expect(retryDelay(failed, 0.5)).toBeNull()
  })

  test("a receiver's Retry-After pushes the next attempt later, never sooner, and at most 24 h", () => {
    expect(retryDelay(1, 0.5, 60 * S)).toBe(60 * S)
    expect(retryDelay(3, 0.5, 60 * S)).toBe(15 * MIN) // the draw already waits longer
    expect(retryDelay(1, 0.5, 0)).toBe(2500)
    expect(retryDelay(1, 0.5, 30 * 24 * H)).toBe(MAX_RETRY_AFTER_MS)
    expect(retryDelay(10, 0.5, 60 * S)).toBeNull() // the schedule is spent all the same
  })
})
