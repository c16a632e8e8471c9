import { describe, expect, test } from 'bun:test'
import { MIN_RETRY_MS, parseRetryAfter, retryDelay } from '../../../src/modules/deliveries/deliveries.schedule'

const S = 1000
const MIN = 60 * S
const STEPS = [30 * S, 5 * MIN]

describe('backoff with full jitter', () => {
  test('a draw anywhere in [1 s, step]: the whole step is used, never less than a second', () => {
    expect(retryDelay(STEPS, 1, 0)).toBe(MIN_RETRY_MS)
    expect(retryDelay(STEPS, 1, 0.5)).toBe(15 * S)
    expect(retryDelay(STEPS, 1, 0.999999)).toBe(30 * S)
    expect(retryDelay(STEPS, 2, 0.25)).toBe(75 * S)
    const draws = Array.from({ length: 20 }, (_, i) => retryDelay(STEPS, 2, i / 20)!)
    expect(new Set(draws).size).toBe(20) // spread, not bunched around the step
    for (const d of draws) expect(d).toBeLessThanOrEqual(5 * MIN)
  })

  test('no retry before the first failure or after the last step', () => {
    expect(retryDelay(STEPS, 0, 0.5)).toBeNull()
    expect(retryDelay(STEPS, 3, 0.5)).toBeNull()
  })

  test("Retry-After pushes later, never sooner, up to the queue's bound", () => {
    expect(retryDelay(STEPS, 1, 0.5, 60 * S)).toBe(60 * S)
    expect(retryDelay(STEPS, 1, 0.5, 1 * S)).toBe(15 * S)
    expect(retryDelay(STEPS, 1, 0.5, 10 * MIN, 2 * MIN)).toBe(2 * MIN)
  })
})

describe('Retry-After, one reading for both queues', () => {
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
