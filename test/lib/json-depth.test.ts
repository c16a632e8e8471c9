import { describe, expect, test } from 'bun:test'
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../src/lib/json-depth'
import { hardwareSample, networkSample } from '../helpers/samples'

const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n)
const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`

describe('exceedsJsonDepth', () => {
  test('counts nesting of arrays and objects up to the limit exactly', () => {
    expect(exceedsJsonDepth(arrays(MAX_JSON_DEPTH))).toBe(false)
    expect(exceedsJsonDepth(arrays(MAX_JSON_DEPTH + 1))).toBe(true)
    expect(exceedsJsonDepth(objects(MAX_JSON_DEPTH))).toBe(false)
    expect(exceedsJsonDepth(objects(MAX_JSON_DEPTH + 1))).toBe(true)
    expect(exceedsJsonDepth('{"a":[{"b":[1]}]}', 4)).toBe(false)
    expect(exceedsJsonDepth('{"a":[{"b":[1]}]}', 3)).toBe(true)
  })

  test('measures depth, not the number of brackets: many shallow siblings pass', () => {
    const wide = JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ i, tags: [i, [i]] })))
    expect(exceedsJsonDepth(wide)).toBe(false)
    expect(exceedsJsonDepth(`[${arrays(3)},${arrays(MAX_JSON_DEPTH)}]`)).toBe(true)
  })

  test('brackets inside strings do not count, escaped quotes do not end a string', () => {
    const inString = JSON.stringify({ s: '['.repeat(10_000) + '{'.repeat(10_000) })
    expect(exceedsJsonDepth(inString)).toBe(false)
    // an escaped quote followed by brackets: still inside the string
    const escaped = JSON.stringify({ s: `\\"${'['.repeat(1000)}"\\` })
    expect(exceedsJsonDepth(escaped)).toBe(false)
    // a string ending in an escaped backslash ends there: the brackets after it count
    expect(exceedsJsonDepth(`["x\\\\",${arrays(MAX_JSON_DEPTH)}]`)).toBe(true)
    expect(exceedsJsonDepth(`["\\u005b",${arrays(3)}]`, 4)).toBe(false)
  })

  test('the deepest legitimate bodies pass with room to spare', () => {
    const batch = JSON.stringify({ hardware: hardwareSample(1), network: networkSample(1) })
    expect(exceedsJsonDepth(batch, 5)).toBe(false)
    expect(exceedsJsonDepth(batch)).toBe(false)
  })

  test('a bomb is refused after scanning only up to the limit', () => {
    expect(exceedsJsonDepth(arrays(1_000_000))).toBe(true)
    expect(exceedsJsonDepth(`{"refresh_token":${objects(20_000)}}`)).toBe(true)
  })
})
