import { expect, test } from 'bun:test'
import { pack, RAW_WIDTH } from '../../../src/modules/containers/containers.pack'
import { cpuSparks, SPARK_BUCKETS, SPARK_MS } from '../../../src/modules/containers/containers.spark'

/** A raw block: each container's CPU first, the other figures null. */
const block = (ts: number, cpu: Record<number, number | null>) => ({
  ts,
  data: pack(
    Object.entries(cpu).map(([seq, v]) => ({ seq: Number(seq), values: [v, ...new Array(RAW_WIDTH - 1).fill(null)] })),
    RAW_WIDTH,
  ),
})

test('each container’s last hour of CPU from one read of the device’s blocks: per-minute averages, null where it sent none', () => {
  const end = 1_800_000_000_000
  const start = end - SPARK_MS
  const sparks = cpuSparks(
    [
      block(start - 1, { 1: 99 }), // before the hour: left out
      block(start + 5_000, { 1: 10, 2: 50 }),
      block(start + 35_000, { 1: 20, 2: null }),
      block(end - 30_000, { 1: 5 }),
      block(end - 20_000, { 3: 7 }), // not asked for (gone): left out
    ],
    [
      { seq: 1, id: 'ctr_a' },
      { seq: 2, id: 'ctr_b' },
    ],
    end,
  )
  expect(Object.keys(sparks)).toEqual(['ctr_a', 'ctr_b'])
  expect(sparks.ctr_a!.length).toBe(SPARK_BUCKETS)
  expect(sparks.ctr_a![0]).toBe(15)
  expect(sparks.ctr_a![SPARK_BUCKETS - 1]).toBe(5)
  expect(sparks.ctr_a!.slice(1, -1).every((v) => v === null)).toBe(true)
  expect(sparks.ctr_b![0]).toBe(50)
  expect(sparks.ctr_b!.slice(1).every((v) => v === null)).toBe(true)
})
