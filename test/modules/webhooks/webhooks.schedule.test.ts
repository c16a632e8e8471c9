import { describe, expect, test } from 'bun:test'
import { JITTER, MAX_ATTEMPTS, MAX_RETRY_AFTER_MS, parseRetryAfter, RETRY_DELAYS_MS, retryDelay } from '../../../src/modules/webhooks/webhooks.schedule'

const S = 1000
const MIN = 60 * S
const H = 60 * MIN

describe('the retry schedule', () => {
  test('at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h; ten attempts in all', () => {
    expect([...RETRY_DELAYS_MS]).toEqual([5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H])
    expect(MAX_ATTEMPTS).toBe(10)
    // with the jitter at its middle, each delay is the schedule's own
    expect(Array.from({ length: 9 }, (_, i) => retryDelay(i + 1, 0.5))).toEqual([...RETRY_DELAYS_MS])
  })

  test.each([
    [0, 'nothing failed yet'],
    [10, 'the tenth attempt was the last'],
    [11, 'past the end'],
  ])('no retry after %p failures (%s)', (failed) => {
    expect(retryDelay(failed, 0.5)).toBeNull()
  })

  test.each(RETRY_DELAYS_MS.map((d, i) => [i + 1, d]))('after %p failures the delay stays within ±20 %% of %p ms', (failed, base) => {
    const low = retryDelay(failed, 0)!
    const high = retryDelay(failed, 0.999999)!
    expect(JITTER).toBe(0.2)
    expect(low).toBe(Math.round(base * 0.8))
    expect(high).toBeLessThanOrEqual(Math.round(base * 1.2))
    expect(high).toBeGreaterThan(Math.round(base * 1.19))
    for (let r = 0; r < 1; r += 0.05) {
      const d = retryDelay(failed, r)!
      expect(d).toBeGreaterThanOrEqual(low)
      expect(d).toBeLessThanOrEqual(high)
    }
  })

  test("a receiver's Retry-After pushes the next attempt later, never sooner, and at most 24 h", () => {
    expect(retryDelay(1, 0.5, 60 * S)).toBe(60 * S)
    expect(retryDelay(3, 0.5, 60 * S)).toBe(30 * MIN) // the schedule already waits longer
    expect(retryDelay(1, 0.5, 0)).toBe(5 * S)
    expect(retryDelay(1, 0.5, 30 * 24 * H)).toBe(MAX_RETRY_AFTER_MS)
    expect(retryDelay(10, 0.5, 60 * S)).toBeNull() // the schedule is spent all the same
  })
})

describe('Retry-After', () => {
  const now = Date.parse('2026-03-01T12:00:00Z')
  test.each([
    ['120', 120 * S],
    [' 0 ', 0],
    ['Sun, 01 Mar 2026 12:02:00 GMT', 2 * MIN],
    ['Sun, 01 Mar 2026 11:00:00 GMT', 0], // already past: at once (the schedule decides)
    [null, null],
    ['', null],
    ['-5', null],
    ['1.5', null],
    ['soon', null],
    ['2026-03-01T12:02:00Z', null], // not an HTTP date
    ['99999999999', null], // more than 10 digits: not a delay anyone means
    ['Sun, 99 Foo 2026 12:02:00 GMT', null],
  ])('%p reads as %p ms', (header, ms) => {
    expect(parseRetryAfter(header, now)).toBe(ms)
  })
})
