import { expect, test } from 'bun:test'
import { toIso } from '../../src/lib/clock'

test('toIso writes every time as Date#toISOString does: within one second, across seconds, before 1970, past 9999, fractions', () => {
  const times = [
    0, 1, 999, 1000, -1, -999, -1000, -1001, 1764230400000, 1764230400001, 1764230400999, 1764230401000, 253402300799999, 253402300800000, -62198755200000, 1.5,
    1764230400123.7,
  ]
  let t = 1764230400000
  for (let i = 0; i < 5000; i++) {
    // mostly a few ms apart (requests of one group), now and then a jump, back or forward
    t += i % 97 === 0 ? Math.round((Math.random() - 0.5) * 1e10) : Math.floor(Math.random() * 40)
    times.push(t)
  }
  for (const ms of times) expect(toIso(ms)).toBe(new Date(ms).toISOString())
})

test('toIso refuses an invalid time as Date#toISOString does', () => {
  toIso(1764230400000)
  expect(() => toIso(Number.NaN)).toThrow(RangeError)
  expect(() => toIso(8.64e15 + 1)).toThrow(RangeError)
  expect(toIso(1764230400005)).toBe('2025-11-27T08:00:00.005Z')
})
