import { describe, expect, test } from 'bun:test'
import { createBlockStore } from '../../../src/modules/metrics/metrics.block.store'
import {
  decodeMinutes,
  encodeMinutes,
  minutesHeapBytes,
  packMinutes,
  type NestedMinutes,
  type PackedMinutes,
} from '../../../src/modules/metrics/metrics.minutes.codec'
import { keptMinutes } from '../../../src/modules/metrics/metrics.minutes.kept'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.UTC(2026, 0, 1)
const MIN = 60_000

/** Minutes of one block with random values: what a sealing keeps beside it. */
function someMinutes(seed: number): NestedMinutes {
  const names = ['core0', 'core1', `/disk${seed}`]
  const entry = (m: number) => ({
    ts: T0 + m * MIN + seed,
    families: [[0, Math.random() * 100, 1, -Math.random()], [2, seed + 0.1 + m], null, null, null, null],
  })
  return { names, kinds: { hardware: Array.from({ length: 10 }, (_, m) => entry(m)), network: [{ ts: T0 + seed, families: [null, [0, 1e21]] }] } }
}

describe('nested minutes kept decoded between reads (metrics.minutes.kept.ts)', () => {
  test('decoded once per key, the same answer each time, exactly what was encoded; unkeyed bytes never kept', () => {
    const kept = keptMinutes()
    const m = someMinutes(1)
    const bytes = encodeMinutes(m)
    expect(keptMinutes().get(null, () => bytes)).toEqual(packMinutes(m))
    let loads = 0
    const load = () => {
      loads++
      return bytes
    }
    const first = kept.get('1:0:5:0', load)
    expect(first).toEqual(packMinutes(m))
    expect(kept.get('1:0:5:0', load)).toBe(first)
    expect(loads).toBe(1)
    // a BLOB of an earlier release: read and decoded each time
    kept.get(null, load)
    kept.get(null, load)
    expect(loads).toBe(3)
    expect(kept.stats()).toEqual({ decodes: 3, kept: 1, bytes: minutesHeapBytes(first) })
  })

  test('at most `maxBytes` of heap kept, the one used longest ago dropped first', () => {
    const minutes = [0, 1, 2].map((i) => someMinutes(i))
    const bytes = minutes.map(encodeMinutes)
    const size = Math.max(...bytes.map((b) => minutesHeapBytes(decodeMinutes(b))))
    // room for two
    const kept = keptMinutes(2 * size + 1)
    const get = (i: number) => kept.get(`k${i}`, () => bytes[i]!)
    get(0)
    get(1)
    get(0) // used again: 1 is now the oldest
    get(2)
    expect(kept.stats()).toMatchObject({ decodes: 3, kept: 2 })
    expect(kept.stats().bytes).toBeLessThanOrEqual(2 * size + 1)
    get(0)
    expect(kept.stats().decodes).toBe(3)
    get(1)
    expect(kept.stats().decodes).toBe(4)
    // minutes larger than the whole room are answered, never kept
    const small = keptMinutes(10)
    small.get('big', () => bytes[0]!)
    expect(small.stats()).toEqual({ decodes: 1, kept: 0, bytes: 0 })
  })

  test('a hub reads a block’s minutes once; a block sealed again with a late sample is read afresh, with it', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 4 * 60 * MIN)
    // 100 minutes every 10 s (ten blocks) but for the first sample of minute 12, which comes late
    const late = T0 + 12 * MIN
    const items = Array.from({ length: 600 }, (_, i) => ({
      recorded_at: new Date(T0 + i * 10_000).toISOString(),
      hardware: hardwareSample(i % 5),
      network: networkSample(i % 3),
    })).filter((it) => it.recorded_at !== new Date(late).toISOString())
    for (let i = 0; i < items.length; i += 200) {
      expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 200) }, headers: a.keyHeaders })).status).toBe(201)
    }
    while ((await t.modules.sealer.run()).blocks > 0) {}
    const seq = t.db.sqlite.query<{ seq: number }, []>('SELECT device_seq AS seq FROM metric_samples LIMIT 1').get()!.seq
    const blocks = createBlockStore(t.db.sqlite)
    const decodes = () => blocks.stats().minuteDecodes
    const d0 = decodes()
    const first = blocks.nestedMinutes(seq, T0, T0 + 100 * MIN).map((b) => b.minutes())
    expect(first).toHaveLength(10)
    expect(decodes()).toBe(d0 + 10)
    const again = blocks.nestedMinutes(seq, T0, T0 + 100 * MIN).map((b) => b.minutes())
    expect(again).toEqual(first)
    for (const [i, m] of again.entries()) expect(m).toBe(first[i]!)
    expect(decodes()).toBe(d0 + 10)
    const minute12 = (m: PackedMinutes[]) => m[1]!.kinds.hardware.ts.find((ts) => Math.floor(ts / MIN) === Math.floor(late / MIN))!
    expect(minute12(first)).toBe(late + 10_000)
    // the late sample seals its block again, in another place: that block is read afresh
    const body = { recorded_at: new Date(late).toISOString(), hardware: hardwareSample(7), network: networkSample(1) }
    expect((await t.request('POST', '/v1/metrics/batch', { body, headers: a.keyHeaders })).status).toBe(201)
    while ((await t.modules.sealer.run()).blocks > 0) {}
    const after = blocks.nestedMinutes(seq, T0, T0 + 100 * MIN).map((b) => b.minutes())
    expect(decodes()).toBe(d0 + 11)
    expect(minute12(after)).toBe(late)
    for (const [i, m] of after.entries()) {
      if (i === 1) expect(m).not.toBe(first[1]!)
      else expect(m).toBe(first[i]!)
    }
  })
})
