import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { memoryLogger } from '../../../src/lib/logger'
import { LEVEL } from '../../../src/modules/metrics/metrics.fields'
import { metricsBudget } from '../../../src/modules/metrics/metrics.budget'
import { runRetention, type MetricsJobDeps } from '../../../src/modules/metrics/metrics.jobs'
import { PRUNE_BATCH, createRollupStore, type RollupPort } from '../../../src/modules/metrics/metrics.rollup.store'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const DAY_S = 86_400
const HOUR = 3_600_000

/**
 * The retention's and the disk budget's deletes, through a store whose rows each take `msPerRow`
 * of a clock of its own: what one batch holds the event loop for on a given disk, without timing
 * anything real.
 */
function world(opts: { rawRows: number; msPerRow: number }) {
  let ms = 0
  let raw = opts.rawRows
  const batches: { limit: number; rows: number; ms: number }[] = []
  const blocksPruned: number[] = []
  const rollups: RollupPort = {
    roll: () => {},
    oldest: () => null,
    doneUntil: () => null,
    setDone: () => {},
    pruneBatch(_kind, level, _seqs, _cutoff, limit = PRUNE_BATCH) {
      if (level !== LEVEL.raw) return 0
      const rows = Math.min(limit, raw)
      raw -= rows
      ms += rows * opts.msPerRow
      batches.push({ limit, rows, ms: rows * opts.msPerRow })
      return rows
    },
    optimize: () => {},
    freePages: () => 0,
    vacuumStep: () => {},
  }
  const deps: MetricsJobDeps = {
    rollups,
    blocks: {
      prune: async () => {
        blocksPruned.push(raw) // the raw rows left when the blocks went
        return 0
      },
    },
    devices: { seqs: () => [1, 2] },
    writer: { claimLateSpan: async () => null, finishLateSpan: async () => {} },
    clock: manualClock(),
    retention: { raw: 7 * DAY_S, m1: 3 * DAY_S, m10: 30 * DAY_S, h1: 365 * DAY_S, d1: 3650 * DAY_S },
    logger: memoryLogger().logger,
    pause: async () => {},
    elapsed: () => ms,
  }
  return { deps, batches, blocksPruned, left: () => raw }
}

describe('the deletes are sized by how long a batch takes', () => {
  test('on a slow card (5,000 raw samples would hold the event loop 100 ms) each batch holds it about 10 ms, and every row goes', async () => {
    const w = world({ rawRows: 60_000, msPerRow: 0.02 })
    expect(await runRetention(w.deps)).toBe(60_000)
    expect(w.left()).toBe(0)
    expect(Math.max(...w.batches.map((b) => b.ms))).toBeLessThanOrEqual(10)
    // the last batch found fewer rows than it asked for: that is how the run knows it is done
    expect(w.batches.at(-1)!.rows).toBeLessThan(w.batches.at(-1)!.limit)
    expect(w.blocksPruned).toEqual([0])
  })

  test('on a quick disk the batches grow to PRUNE_BATCH rows', async () => {
    const w = world({ rawRows: 60_000, msPerRow: 0.0005 })
    expect(await runRetention(w.deps)).toBe(60_000)
    expect(w.batches.map((b) => b.limit).slice(0, 5)).toEqual([500, 1_000, 2_000, 4_000, PRUNE_BATCH])
    expect(Math.max(...w.batches.map((b) => b.limit))).toBe(PRUNE_BATCH)
  })

  test("the disk budget's steps are sized the same, and its blocks go once the raw rows before the cut-off are through", async () => {
    const w = world({ rawRows: 30_000, msPerRow: 0.02 })
    const budget = metricsBudget(w.deps)
    let deleted = 0
    for (let n = -1; n !== 0; ) deleted += n = await budget.pruneStep('raw', Date.now())
    expect(deleted).toBe(30_000)
    expect(Math.max(...w.batches.map((b) => b.ms))).toBeLessThanOrEqual(10)
    expect(w.blocksPruned).toEqual([0])
  })
})

describe("the store's delete of raw samples", () => {
  test('takes at most the rows asked for, sealed rows first, then hot ones; fewer once nothing older is left', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    const T0 = Date.parse('2026-01-01T00:00:00Z')
    t.clock.set(T0 + 3 * HOUR)
    const items = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        hardware: hardwareSample(i),
        network: networkSample(i),
        recorded_at: new Date(from + i * 10_000).toISOString(),
      }))
    // 200 samples two hours old, sealed; then 150 half an hour old, still hot
    for (const [from, n] of [[T0, 200] as const, [T0 + 150 * 60_000, 150] as const]) {
      if (from !== T0) await t.modules.sealer.run()
      expect((await t.request('POST', '/v1/metrics/bulk', { body: { items: items(from, n) }, headers: a.keyHeaders })).status).toBe(201)
    }
    const seq = t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq
    const store = createRollupStore(t.db.sqlite)
    const raw = () => t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
    const rawBefore = raw()
    const taken: number[] = []
    for (let n = -1; n !== 0; ) taken.push((n = store.pruneBatch('hardware', LEVEL.raw, [seq], t.clock.now(), 120)))
    // 120 sealed; the other 80 sealed and 40 hot in one batch; the 110 hot left; none
    expect(taken).toEqual([120, 120, 110, 0])
    expect(rawBefore - raw()).toBe(350)
  })
})
