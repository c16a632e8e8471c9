import { describe, expect, test } from 'bun:test'
import { mergeOrders } from '../../scripts/bytecode-profile'

const record = (...entries: string[]) => `v2\n${entries.join('\n')}\n`

describe('the build profile of the hub and the collector', () => {
  test('shared entries first in the hub order, then the collector own, then the hub own; none twice', () => {
    const hub = record('F h1', 'F s1', 'K h2', 'F s2')
    const agent = record('F s2', 'F a1', 'F s1', 'F a1', 'S a2')
    expect(mergeOrders(hub, agent)).toBe(record('F s1', 'F s2', 'F a1', 'S a2', 'F h1', 'K h2'))
  })

  test('keeps the hub record header and every entry of both', () => {
    const merged = mergeOrders(record('F x'), record('F y')).trim().split('\n')
    expect(merged).toEqual(['v2', 'F y', 'F x'])
  })
})
