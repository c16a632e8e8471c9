import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { JsonBytes } from '../../../src/lib/json-bytes'
import { FIELDS } from '../../../src/modules/metrics/metrics.fields'
import { sqliteMetricsReads, type MetricsReads } from '../../../src/modules/metrics/metrics.reads'
import { toSampleRow, writePage } from '../../../src/modules/metrics/metrics.rows'
import { toRecord } from './record-shape'
import { batchRows } from '../../../src/modules/metrics/metrics.service'
import { createMetricsStore } from '../../../src/modules/metrics/metrics.store'
import { createMetricsStorePg } from '../../../src/modules/metrics/metrics.store.pg'
import { createMetricWriter } from '../../../src/modules/metrics/metrics.writer'
import type { WriteJob, WriteResult } from '../../../src/modules/metrics/metrics.group-commit'
import { createMetricWriterPg } from '../../../src/modules/metrics/metrics.writer.pg'
import type { LateSpan } from '../../../src/modules/metrics/metrics.late.store'
import { rollupAll } from '../../../src/modules/metrics/metrics.rollup'
import { createRollupStore, type RollupPort } from '../../../src/modules/metrics/metrics.rollup.store'
import { createRollupStorePg } from '../../../src/modules/metrics/metrics.rollup.store.pg'
import { sqliteSeriesReads, type SeriesReads } from '../../../src/modules/metrics/metrics.series.reads'
import { createSeriesStore } from '../../../src/modules/metrics/metrics.series.store'
import { createSeriesStorePg } from '../../../src/modules/metrics/metrics.series.store.pg'
import type { Timers } from '../../../src/lib/timers'
import { ENGINES, type EngineDb } from '../../helpers/engines'
import real from '../../fixtures/agent-sample.json'

/**
 * The metric writer and reads answer the same on SQLite and on PostgreSQL: the real sample
 * (`vigil agent --once`) and its repeats, parts sent apart, the hub's own times, pages, counts,
 * latest values and tiers; another device's samples never answer.
 */

const T0 = Date.UTC(2026, 10, 20, 12)
/** a gathering fires on the next turn instead of after 50 ms: nothing waits on time here */
const soon: Timers = {
  after(_ms, fn) {
    let on = true
    setImmediate(() => on && fn())
    return () => {
      on = false
    }
  },
}

interface World {
  write(job: WriteJob): Promise<WriteResult>
  reads: MetricsReads
  series: SeriesReads
  rollups: RollupPort
  takeLate(kind: 'hardware' | 'network'): Promise<{ from: number; to: number } | null>
  claimLate(kind: 'hardware' | 'network'): Promise<LateSpan | null>
  finishLate(kind: 'hardware' | 'network'): Promise<void>
  /** what the reads see as not rolled up yet */
  pendingLate(kind: 'hardware' | 'network'): Promise<LateSpan | null>
  lastSeen(seq: number): Promise<number | null>
}

function worldOf(db: EngineDb, clock: ReturnType<typeof manualClock>): World {
  if (db.sqlite) {
    const sqlite = db.sqlite
    const writer = createMetricWriter(
      sqlite,
      clock,
      { markSeen: (seq, at) => sqlite.run('UPDATE devices SET last_seen_at = ? WHERE seq = ?', [at, seq]) },
      soon,
    )
    return {
      write: (j) => writer.submit(j),
      reads: sqliteMetricsReads(createMetricsStore(sqlite)),
      series: sqliteSeriesReads(createSeriesStore(sqlite)),
      rollups: createRollupStore(sqlite),
      takeLate: async (kind) => {
        const span = writer.claimLateSpan(kind)
        writer.finishLateSpan(kind)
        return span
      },
      claimLate: async (kind) => writer.claimLateSpan(kind),
      finishLate: async (kind) => writer.finishLateSpan(kind),
      pendingLate: async (kind) => createMetricsStore(sqlite).lateSpan(kind),
      lastSeen: async (seq) => sqlite.query<{ t: number | null }, [number]>('SELECT last_seen_at AS t FROM devices WHERE seq = ?').get(seq)!.t,
    }
  }
  const pg = db.pg!
  const writer = createMetricWriterPg(pg, clock, { rawRetentionMs: 30 * 86_400_000 }, soon)
  return {
    write: (j) => writer.submit(j),
    reads: createMetricsStorePg(pg),
    series: createSeriesStorePg(pg),
    rollups: createRollupStorePg(pg),
    takeLate: async (kind) => {
      const span = await writer.claimLateSpan(kind)
      await writer.finishLateSpan(kind)
      return span
    },
    claimLate: (kind) => writer.claimLateSpan(kind),
    finishLate: (kind) => writer.finishLateSpan(kind),
    pendingLate: (kind) => createMetricsStorePg(pg).lateSpan(kind),
    lastSeen: async (seq) => {
      const [r] = await pg`SELECT last_seen_at AS t FROM devices WHERE seq = ${seq}`
      return r.t === null ? null : Number(r.t)
    },
  }
}

/** the real sample moved to `ts`, with the counters grown by i */
const sample = (i: number) => {
  const hw = { ...real.hardware, cpu_percent: 10 + i } as Record<string, unknown>
  const net = { ...real.network, bytes_sent_total: (real.network.bytes_sent_total as number) + i * 1000 } as Record<string, unknown>
  return { hardware: hw, network: net }
}
const at = (i: number) => new Date(T0 + i * 10_000).toISOString()
const batch = (seq: number, i: number, now = T0 + 3_600_000): WriteJob => ({ deviceSeq: seq, samples: batchRows({ ...sample(i), recorded_at: at(i) }, now) })

/** a page as the history route writes it (ids and times as stored) */
const pageJson = (rows: unknown[][], kind: 'hardware' | 'network') => new TextDecoder().decode(writePage(new JsonBytes(), kind, rows, 'dev-1').take())

async function seed(db: EngineDb) {
  await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', ['c1', 'c1'])
  for (const [id, seq] of [
    ['dev-1', 1],
    ['dev-2', 2],
  ] as const) {
    await db.exec('INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, seq) VALUES (?, ?, ?, 1, 1, ?)', [id, 'c1', id, seq])
  }
}

for (const engine of ENGINES) {
  describe(`metric writer and reads on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const clock = manualClock(T0 + 3_600_000)
    let w: World
    let ready = false
    const setup = async () => {
      if (ready) return w
      await seed(handle.db)
      w = worldOf(handle.db, clock)
      ready = true
      return w
    }

    test.skipIf(engine.skip)(
      `a batch of the real sample is one sample: both parts read back as sent, the nested parts byte for byte ${engine.skipReason}`,
      async () => {
        const { write, reads, lastSeen } = await setup()
        const r = await write(batch(1, 0))
        expect(r.duplicate).toBeNull()
        expect(r.ids[0]).toBe(r.ids[1]!)
        for (const kind of ['hardware', 'network'] as const) {
          const row = await reads.latest(kind, 1)
          const record = toRecord(kind, row!, 'dev-1')
          expect(record).toEqual({ ...toRecord(kind, { id: r.ids[0], ts: T0, ...hotOf(kind, 0), rest: restOf(kind, 0) }, 'dev-1') })
          expect(row!.rest).toBe(restOf(kind, 0))
        }
        expect(await lastSeen(1)).toBe(T0 + 3_600_000)
      },
    )

    test.skipIf(engine.skip)(`a repeat is recognised with the stored id; the other part sent apart joins the stored sample ${engine.skipReason}`, async () => {
      const { write, reads } = await setup()
      const first = await write(batch(1, 1))
      const again = await write(batch(1, 1))
      expect(again).toEqual({ ids: first.ids, duplicate: [true, true] })
      const hwOnly = batchRows({ hardware: sample(2).hardware, recorded_at: at(2) }, T0 + 3_600_000)
      const netOnly = batchRows({ network: sample(2).network, recorded_at: at(2) }, T0 + 3_600_000)
      const h = await write({ deviceSeq: 1, samples: hwOnly })
      expect(await reads.latest('network', 1)).toMatchObject({ ts: T0 + 10_000 })
      const n = await write({ deviceSeq: 1, samples: netOnly })
      expect(n).toEqual({ ids: h.ids, duplicate: null })
      expect((await reads.latest('network', 1))!.rest).toBe(restOf('network', 2))
      expect((await reads.latest('hardware', 1))!.rest).toBe(restOf('hardware', 2))
      expect(await write({ deviceSeq: 1, samples: netOnly })).toEqual({ ids: h.ids, duplicate: [true] })
    })

    test.skipIf(engine.skip)(`samples the hub stamps in one millisecond are all kept, a millisecond apart ${engine.skipReason}`, async () => {
      const { write, reads } = await setup()
      const now = T0 + 3_000_000
      const a = await write({ deviceSeq: 2, samples: [toSampleRow('hardware', sample(0).hardware, now, false)] })
      const b = await write({ deviceSeq: 2, samples: [toSampleRow('hardware', sample(1).hardware, now, false)] })
      expect(a.ids[0]).not.toBe(b.ids[0]!)
      expect((await reads.rawValues('hardware', 2, now, now + 10)).map((r) => [r[0], r[1]])).toEqual([
        [now, 10],
        [now + 1, 11],
      ])
    })

    test.skipIf(engine.skip)(`a device that does not exist is not_found, and the others of its group are stored ${engine.skipReason}`, async () => {
      const { write } = await setup()
      const gone = write({ deviceSeq: 99, samples: batch(1, 50).samples })
      const ok = write(batch(1, 51))
      await expect(gone).rejects.toMatchObject({ code: 'not_found' })
      expect((await ok).duplicate).toBeNull()
    })

    test.skipIf(engine.skip)(
      `pages newest first with limit and offset, counts, first and last, oldest, within the device only ${engine.skipReason}`,
      async () => {
        const { write, reads } = await setup()
        for (let i = 10; i < 16; i++) await write(batch(1, i))
        await write(batch(2, 12))
        const from = T0 + 100_000
        const to = T0 + 150_000
        const page = await reads.page('hardware', 1, from, to, 4, 1)
        expect(page.map((r) => r[1])).toEqual([T0 + 140_000, T0 + 130_000, T0 + 120_000, T0 + 110_000])
        expect(page[0]![2]).toBe(24)
        expect(pageJson(page, 'hardware')).toContain(`"cpu_brand":"AMD EPYC"`)
        expect(pageJson(page, 'hardware')).toContain(restOf('hardware', 14).slice(1, -1))
        expect(await reads.count('hardware', 1, from, to)).toBe(6)
        expect(await reads.count('network', 2, from, to)).toBe(1)
        expect(await reads.firstTs('network', 1, from, to)).toBe(from)
        expect(await reads.lastTs('network', 1, from, to)).toBe(T0 + 140_000)
        expect(await reads.oldestTs('hardware', 2)).toBe(T0 + 120_000)
        expect(await reads.oldestTs('hardware', 3)).toBeNull()
        expect(await reads.page('hardware', 3, 0, Number.MAX_SAFE_INTEGER, 10, 0)).toEqual([])
        const raw = await reads.rawValues('network', 1, from, from + 20_000)
        expect(raw).toEqual([
          [from, ...hotValues('network', 10)],
          [from + 10_000, ...hotValues('network', 11)],
        ])
        // device 1: i = 10..15 and 51; device 2: i = 12 and the two the hub stamped
        expect(await reads.countSince('hardware', [1, 2], T0 + 100_000)).toBe(7 + 3)
        expect(await reads.countSince('hardware', [], 0)).toBe(0)
        const latest = await reads.latestOf('hardware', [2, 3, 1])
        expect(latest.map((r) => r[0])).toEqual([2, 1])
        expect(latest[0]).toEqual([2, T0 + 3_000_001, ...hotValues('hardware', 1)])
      },
    )

    test.skipIf(engine.skip)(
      `tiers: rows read back oldest first with their counts; hourly averages skip buckets without the field ${engine.skipReason}`,
      async () => {
        const { reads } = await setup()
        expect(await reads.tierValues('hardware', '1h', 1, 0, T0 * 2)).toEqual([])
        expect(await reads.hourlyCount('hardware', 1, 0, T0 * 2)).toBe(0)
        expect(await reads.doneUntil('network')).toEqual({ '1m': 0, '10m': 0, '1h': 0, '1d': 0 })
        const db = handle.db
        await db.exec(
          'INSERT INTO metric_hw_1h (device_seq, bucket, n, cpu_percent_avg, cpu_percent_min, cpu_percent_max, cpu_percent_n) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [1, T0, 360, 12.5, 1, 99.5, 360],
        )
        await db.exec('INSERT INTO metric_hw_1h (device_seq, bucket, n, cpu_percent_n) VALUES (?, ?, ?, ?)', [1, T0 - 3_600_000, 3, 0])
        await db.exec('INSERT INTO metric_hw_1h (device_seq, bucket, n) VALUES (?, ?, ?)', [2, T0, 5])
        await db.exec('INSERT INTO metric_rollups (kind, tier, done_until) VALUES (?, ?, ?)', ['hardware', '1h', T0 + 3_600_000])
        const rows = await reads.tierValues('hardware', '1h', 1, 0, T0 * 2)
        expect(rows.map((r) => r.slice(0, 6))).toEqual([
          [T0 - 3_600_000, 3, null, null, null, 0],
          [T0, 360, 12.5, 1, 99.5, 360],
        ])
        expect(rows[0]!.length).toBe(2 + FIELDS.hardware.length * 4)
        expect(await reads.hourlyCount('hardware', 1, 0, T0 * 2)).toBe(363)
        expect(await reads.hourlyAverages('hardware', 'cpu_percent', 1, 0, T0 * 2)).toEqual([{ t: T0, avg: 12.5 }])
        expect(await reads.hourlyAverages('hardware', 'no_such', 1, 0, T0 * 2)).toBeUndefined()
        expect((await reads.doneUntil('hardware'))['1h']).toBe(T0 + 3_600_000)
      },
    )

    test.skipIf(engine.skip)(
      `chart reads: recent times, hot fields and families of raw samples, tier rows of the fields asked for ${engine.skipReason}`,
      async () => {
        const { series } = await setup()
        expect(await series.recentTimes(1)).toEqual([
          T0 + 510_000,
          T0 + 150_000,
          T0 + 140_000,
          T0 + 130_000,
          T0 + 120_000,
          T0 + 110_000,
          T0 + 100_000,
          T0 + 20_000,
        ])
        expect(await series.recentTimes(3)).toEqual([])
        const rows = await series.rawRows('hardware', ['cpu_percent'], ['cpu_per_core', 'gpus', 'fans'], 1, T0 + 100_000, T0 + 120_000, 10)
        const hw = sample(10).hardware
        const text = (k: string) => (hw[k] === undefined ? null : JSON.stringify(hw[k]))
        expect(rows).toEqual([
          [T0 + 100_000, 20, text('cpu_per_core'), text('gpus'), text('fans')],
          [T0 + 110_000, 21, text('cpu_per_core'), text('gpus'), text('fans')],
        ])
        expect((await series.rawRows('network', ['upload_mbps'], [], 1, T0, T0 + 200_000, 3)).map((r) => r[0])).toEqual([T0, T0 + 10_000, T0 + 20_000])
        expect((await series.tierRows('hardware', '1h', ['cpu_percent'], 1, 0, T0 * 2)).map((r) => r.slice(0, 5))).toEqual([
          [T0 - 3_600_000, null, null, null, 0],
          [T0, 12.5, 1, 99.5, 360],
        ])
      },
    )

    test.skipIf(engine.skip)(
      `the rollup folds samples into minutes (averages, min, max, counter growth); a late sample re-rolls its minute ${engine.skipReason}`,
      async () => {
        const { write, reads, rollups, takeLate } = await setup()
        const base = T0 - 7_200_000
        const job = (k: number, cpu: number) => ({
          deviceSeq: 2,
          samples: batchRows(
            {
              hardware: { ...sample(k).hardware, cpu_percent: cpu },
              network: { ...sample(k).network, bytes_sent_total: 1_000_000 + k * 1000 },
              recorded_at: new Date(base + k * 10_000).toISOString(),
            },
            T0 + 3_600_000,
          ),
        })
        await takeLate('hardware')
        for (let k = 0; k < 12; k++) if (k !== 3) await write(job(k, 10 + k))
        expect(await takeLate('hardware')).toEqual({ from: base, to: base + 110_000 })
        await takeLate('network')
        await rollupAll(rollups, { now: T0 + 3_600_000, devices: [2] })
        const cpu = async () => (await reads.tierValues('hardware', '1m', 2, base, base + 120_000)).map((r) => [r[0], r[1], ...r.slice(2, 6)])
        expect(await cpu()).toEqual([
          [base, 5, (10 + 11 + 12 + 14 + 15) / 5, 10, 15, 5],
          [base + 60_000, 6, 18.5, 16, 21, 6],
        ])
        const net = (await reads.tierValues('network', '1m', 2, base, base + 120_000)).map((r) => r.slice(-6, -3))
        expect(net).toEqual([
          [5000, 1_000_000, 1_005_000],
          [5000, 1_006_000, 1_011_000],
        ])
        // the missing sample arrives late: its minute alone is rolled again by the next run
        await write(job(3, 13))
        const late = { hardware: await takeLate('hardware'), network: await takeLate('network') }
        expect(late.hardware).toEqual({ from: base + 30_000, to: base + 30_000 })
        await rollupAll(rollups, { now: T0 + 3_600_000, devices: [2], late })
        expect((await cpu())[0]).toEqual([base, 6, 12.5, 10, 15, 6])
        expect((await reads.doneUntil('hardware'))['1m']).toBe(Math.floor((T0 + 3_600_000 - 30_000) / 60_000) * 60_000)
        // retention of a tier: rows before the cutoff go, the rest stay
        expect(await rollups.pruneBatch('hardware', 1, [2], base + 60_000)).toBe(1)
        expect((await cpu()).map((r) => r[0])).toEqual([base + 60_000])
      },
    )

    test.skipIf(engine.skip)(
      `late samples stored while a rollup run rolls the span it claimed go to the next run; a run that stops leaves its span to the next ${engine.skipReason}`,
      async () => {
        const { write, claimLate, finishLate, pendingLate, takeLate } = await setup()
        await takeLate('hardware')
        const base = T0 - 5 * 3_600_000
        const job = (k: number) => ({
          deviceSeq: 2,
          samples: batchRows({ ...sample(k), recorded_at: new Date(base + k * 10_000).toISOString() }, T0 + 3_600_000),
        })
        const at = (k: number) => base + k * 10_000
        await write(job(0))
        await write(job(9))
        expect(await claimLate('hardware')).toEqual({ from: at(0), to: at(9) })
        await write(job(4)) // while the run rolls what it claimed
        expect(await pendingLate('hardware')).toEqual({ from: at(0), to: at(9) })
        await finishLate('hardware')
        expect(await pendingLate('hardware')).toEqual({ from: at(4), to: at(4) })
        // a run that stops midway (killed, an error) never finishes: the next claims its span too
        await write(job(20))
        expect(await claimLate('hardware')).toEqual({ from: at(4), to: at(20) })
        await write(job(30))
        expect(await claimLate('hardware')).toEqual({ from: at(4), to: at(30) })
        await finishLate('hardware')
        expect(await pendingLate('hardware')).toBeNull()
        expect(await claimLate('hardware')).toBeNull()
      },
    )
  })
}

/** the hot values of sample i as stored */
function hotValues(kind: 'hardware' | 'network', i: number) {
  return toSampleRow(kind, sample(i)[kind], 0).values
}
function hotOf(kind: 'hardware' | 'network', i: number) {
  const v = hotValues(kind, i)
  return Object.fromEntries(FIELDS[kind].map((f, k) => [f.name, v[k]]))
}
function restOf(kind: 'hardware' | 'network', i: number) {
  return toSampleRow(kind, sample(i)[kind], 0).rest!
}
