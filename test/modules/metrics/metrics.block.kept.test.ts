import { describe, expect, test } from 'bun:test'
import { createBlockStore } from '../../../src/modules/metrics/metrics.block.store'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.UTC(2026, 0, 1)
const MIN = 60_000

/** 100 minutes of samples every 10 s (ten blocks), sealed. */
async function sealed(t: TestApp) {
  const a = await tenantWithDevices(t)
  t.clock.set(T0 + 4 * 60 * MIN)
  const items = Array.from({ length: 600 }, (_, i) => ({
    recorded_at: new Date(T0 + i * 10_000).toISOString(),
    hardware: hardwareSample(i % 5),
    network: networkSample(i % 3),
  }))
  for (let i = 0; i < items.length; i += 200) {
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 200) }, headers: a.keyHeaders })).status).toBe(201)
  }
  while ((await t.modules.sealer.run()).blocks > 0) {}
  const rows = t.db.sqlite.query<{ id: number; ts: number; device_seq: number }, []>('SELECT id, ts, device_seq FROM metric_samples ORDER BY ts').all()
  return { rows, seq: rows[0]!.device_seq }
}

describe('decoded blocks kept between reads (metrics.block.store.ts)', () => {
  test('a block read once is not kept; read again, it is kept, and its texts are the same each time', async () => {
    const t = testApp()
    const { rows, seq } = await sealed(t)
    const blocks = createBlockStore(t.db.sqlite)
    const decodes = () => blocks.stats().decodes
    /** one read of a page of the block holding row i (a reader per read, as the stores make) */
    const text = (i: number) => blocks.reader(seq)(rows[i]!.id, rows[i]!.ts, 'hardware')
    const first = text(0)
    expect(first).toBeString()
    const d0 = decodes()
    // three other blocks read once each (pages anywhere in the month): not kept, so the last of
    // them read again is decoded again, and kept from then on
    for (const i of [60, 120, 180]) text(i)
    expect(decodes()).toBe(d0 + 3)
    text(180)
    expect(decodes()).toBe(d0 + 4)
    text(180)
    text(181)
    expect(decodes()).toBe(d0 + 4)
    // the first block, read a second time: its texts as the first time, kept from now on
    expect(text(0)).toBe(first)
    expect(decodes()).toBe(d0 + 5)
    expect(text(0)).toBe(first)
    expect(decodes()).toBe(d0 + 5)
  })
})
