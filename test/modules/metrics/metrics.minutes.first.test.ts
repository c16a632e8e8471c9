import { describe, expect, test } from 'bun:test'
import { firstMinutes } from '../../../src/modules/metrics/metrics.minutes'
import { packMinutes, type KindMinutes, type NestedMinutes } from '../../../src/modules/metrics/metrics.minutes.codec'
import { seeded } from './sample-bodies'

const MIN = 60_000
const BLOCK = 10 * MIN
const T0 = Date.UTC(2026, 0, 1)

/** A block of these minutes that counts how often it is decoded. */
function counted(start: number, built: NestedMinutes) {
  const packed = packMinutes(built)
  const block = {
    start,
    end: start + BLOCK,
    built,
    decodes: 0,
    minutes() {
      block.decodes++
      return packed
    },
  }
  return block
}

/** A minute found, as a chart takes it: its time, and its first family's series by name. */
const taken = (found: { minutes: KindMinutes; e: number; names: string[] } | undefined) => {
  if (!found) return null
  const { minutes: m, e, names } = found
  const i = e * m.families
  return { ts: m.ts[e], series: Array.from(m.name.subarray(m.at[i], m.at[i + 1]), (n, k) => [names[n], m.value[m.at[i]! + k]]) }
}

/**
 * `count` blocks of a device with gaps (blocks missing: the device offline), minutes missing
 * inside blocks, and minutes of only one kind; each block counts its decodes.
 */
function device(r: () => number, count: number) {
  const blocks: ReturnType<typeof counted>[] = []
  for (let k = 0; k < count; k++) {
    if (r() < 0.2) continue
    const start = T0 + k * BLOCK
    const minutes: NestedMinutes = { names: [`n${k}`], kinds: { hardware: [], network: [] } }
    for (let m = 0; m < 10; m++) {
      const ts = start + m * MIN + Math.floor(r() * 50) * 1000
      if (r() < 0.7) minutes.kinds.hardware.push({ ts, families: [[0, k * 10 + m]] })
      if (r() < 0.5) minutes.kinds.network.push({ ts: ts + 1, families: [[0, -m]] })
    }
    blocks.push(counted(start, minutes))
  }
  return blocks
}

/** What the chart took before: every block's minutes laid end to end, as sealed, the first at or after `lo` taken. */
function reference(blocks: ReturnType<typeof counted>[], kind: 'hardware' | 'network', lo: number, hi: number) {
  const all = blocks.flatMap((b) => b.built.kinds[kind].map((entry) => ({ entry, names: b.built.names })))
  const first = all.find((x) => x.entry.ts >= lo)
  if (!first || first.entry.ts >= hi) return null
  const pairs = first.entry.families[0] ?? []
  return { ts: first.entry.ts, series: pairs.flatMap((n, k) => (k % 2 ? [] : [[first.names[n], pairs[k + 1]]])) }
}

describe('the first minute of each slot from blocks decoded when reached (metrics.minutes.ts)', () => {
  test('gives what every block decoded gave, for slots shorter and longer than a block, across gaps', () => {
    const rng = seeded(20261128)
    const r = () => rng.next()
    for (let round = 0; round < 300; round++) {
      const blocks = device(r, 1 + Math.floor(r() * 60))
      const kind = r() < 0.5 ? 'hardware' : 'network'
      // whole minutes, from a minute to five hours
      const slot = (1 + Math.floor(r() * 300)) * MIN
      const from = T0 + Math.floor(r() * 100) * MIN
      const to = T0 + 61 * BLOCK
      const first = firstMinutes(blocks, kind)
      const reads: string[] = []
      const want: string[] = []
      for (let s = from; s < to; s += slot) {
        const hi = Math.min(s + slot, to)
        reads.push(JSON.stringify(taken(first(s, hi))))
        want.push(JSON.stringify(reference(blocks, kind, s, hi)))
      }
      expect(reads).toEqual(want)
    }
  })

  test('decodes only the blocks the slots reach, each once', () => {
    // a day of blocks, each with a hardware minute every minute: the block holding a slot's start has its minute
    const blocks = Array.from({ length: 144 }, (_, k) => {
      const start = T0 + k * BLOCK
      const hardware = Array.from({ length: 10 }, (_, m) => ({ ts: start + m * MIN, families: [] }))
      return counted(start, { names: [], kinds: { hardware, network: [] } })
    })
    const first = firstMinutes(blocks, 'hardware')
    // a day in slots of an hour: 24 of the 144 blocks
    for (let s = T0; s < T0 + 144 * BLOCK; s += 6 * BLOCK) expect(first(s, s + 6 * BLOCK)).toBeDefined()
    expect(blocks.filter((b) => b.decodes > 0)).toHaveLength(24)
    expect(Math.max(...blocks.map((b) => b.decodes))).toBe(1)
  })
})
