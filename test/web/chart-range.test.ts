import { describe, expect, test } from 'bun:test'
import { DEFAULT_RANGE, parseRange, parseZoom, RANGES, windowFor, windowQuery, zoomParams } from '../../web/src/charts/range'

const NOW = Date.parse('2025-03-01T12:00:00.500Z')
const NOW_S = Math.floor(NOW / 1000)

describe('range → window', () => {
  test.each(Object.entries(RANGES))('%s ends now and spans its length', (key, seconds) => {
    const w = windowFor(parseRange(key), null, NOW)
    expect(w).toEqual({ start: NOW_S - seconds, end: NOW_S, live: true })
  })

  test.each([null, undefined, '', '2h', 'constructor', '__proto__', '1H'])('an unknown range %p falls back to the default', (v) => {
    expect(parseRange(v)).toBe(DEFAULT_RANGE)
  })

  test('a zoom wins over the range and is not live', () => {
    expect(windowFor('30d', [1_700_000_000, 1_700_003_600], NOW)).toEqual({ start: 1_700_000_000, end: 1_700_003_600, live: false })
  })

  test('the query is ISO 8601 UTC', () => {
    expect(windowQuery({ start: 1_700_000_000, end: 1_700_003_600, live: false })).toEqual({
      start: '2023-11-14T22:13:20.000Z',
      end: '2023-11-14T23:13:20.000Z',
    })
  })
})

describe('zoom in the URL', () => {
  test.each<[string | null, string | null, [number, number] | null]>([
    ['1700000000', '1700003600', [1_700_000_000, 1_700_003_600]],
    ['1700003600', '1700000000', null],
    ['1700000000', '1700000000', null],
    ['1700000000', null, null],
    [null, '1700000000', null],
    ['17e8', '1800000000', null],
    ['-1', '1800000000', null],
    ['1700000000.5', '1800000000', null],
    ['12', '50', null],
    ['99999999999999', '999999999999999', null],
  ])('parseZoom(%p, %p) = %p', (from, to, out) => expect(parseZoom(from, to)).toEqual(out))

  test('rounds outward and orders the ends', () => {
    expect(zoomParams([1_700_000_100.7, 1_700_000_000.2])).toEqual({ from: '1700000000', to: '1700000101' })
  })

  test('null clears', () => expect(zoomParams(null)).toEqual({ from: null, to: null }))

  test('round-trips', () => {
    const p = zoomParams([1_700_000_000, 1_700_003_600])
    expect(parseZoom(p.from, p.to)).toEqual([1_700_000_000, 1_700_003_600])
  })
})
