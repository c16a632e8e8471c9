import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { createEventBus } from '../../../src/lib/event-bus'
import { hook } from '../../../src/composition/hooks'
import { linkedPeers } from '../../helpers/peer-links'
import { sqliteFleetReads, fleetFigures, type FleetReads } from '../../../src/modules/metrics/metrics.fleet'
import { createFleetReadsPg, followSampleTimes, recentTimes } from '../../../src/modules/metrics/metrics.fleet.store.pg'
import { sqliteMetricsReads, type MetricsReads } from '../../../src/modules/metrics/metrics.reads'
import { rollupAll } from '../../../src/modules/metrics/metrics.rollup'
import { createRollupStore } from '../../../src/modules/metrics/metrics.rollup.store'
import { createRollupStorePg } from '../../../src/modules/metrics/metrics.rollup.store.pg'
import { aiMetricsSource } from '../../../src/composition/monitoring'
import { batchRows, latestValues, metricsStats, type MetricsDeps } from '../../../src/modules/metrics/metrics.service'
import { fieldSeriesOf, fieldSeriesReader } from '../../../src/modules/metrics/metrics.field-series'
import { createMetricsStore } from '../../../src/modules/metrics/metrics.store'
import { createMetricsStorePg } from '../../../src/modules/metrics/metrics.store.pg'
import { createSeriesStore } from '../../../src/modules/metrics/metrics.series.store'
import { createMetricWriter } from '../../../src/modules/metrics/metrics.writer'
import type { WriteJob } from '../../../src/modules/metrics/metrics.group-commit'
import { createMetricWriterPg } from '../../../src/modules/metrics/metrics.writer.pg'
import type { Timers } from '../../../src/lib/timers'
import { ENGINES, type EngineDb } from '../../helpers/engines'
import real from '../../fixtures/agent-sample.json'

/**
 * The metric reads other domains make (the fleet overview's figures and the devices' intervals,
 * the scrape's newest values, the operator's sample counts) answer the same on SQLite and on
 * PostgreSQL, from the real sample (`vigil agent --once`); another account's device never
 * answers for the devices asked about.
 */

const T0 = Date.UTC(2026, 10, 20, 12)
const MIN = 60_000
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
  write(job: WriteJob): Promise<unknown>
  reads: MetricsReads
  /** the fleet's reads as a hub makes them at start (on PostgreSQL: its sample times loaded) */
  fleet(): Promise<FleetReads>
  rollup(now: number): Promise<void>
}

function worldOf(db: EngineDb, clock: ReturnType<typeof manualClock>): World {
  if (db.sqlite) {
    const sqlite = db.sqlite
    const writer = createMetricWriter(sqlite, clock, { markSeen: () => {} }, soon)
    return {
      write: (j) => writer.submit(j),
      reads: sqliteMetricsReads(createMetricsStore(sqlite)),
      fleet: async () => sqliteFleetReads(createSeriesStore(sqlite), createMetricsStore(sqlite)),
      rollup: (now) => rollupAll(createRollupStore(sqlite), { now, devices: [1, 2, 3, 4] }),
    }
  }
  const pg = db.pg!
  const writer = createMetricWriterPg(pg, clock, { rawRetentionMs: 30 * 86_400_000 }, soon)
  return {
    write: (j) => writer.submit(j),
    reads: createMetricsStorePg(pg),
    async fleet() {
      const recent = recentTimes()
      await recent.load(pg)
      return createFleetReadsPg(pg, recent)
    },
    rollup: (now) => rollupAll(createRollupStorePg(pg), { now, devices: [1, 2, 3, 4] }),
  }
}

const hardware = (cpu: number) => ({ ...real.hardware, cpu_percent: cpu })
const network = { ...real.network, latency_avg_ms: 12.5 }
const job = (seq: number, ts: number, body: Record<string, unknown>): WriteJob => ({
  deviceSeq: seq,
  samples: batchRows({ ...body, recorded_at: new Date(ts).toISOString() }, T0),
})

/**
 * Device 1 (account c1): a sample every 30 s for the 40 minutes before T0, CPU 20 then 30 in each
 * minute. Device 2 (c1): one hardware part 5 minutes before T0. Device 3 (c1): nothing. Device 4
 * (c2): a sample a second before T0, never asked for with c1's devices.
 */
async function seed(db: EngineDb, w: World) {
  await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1), (?, ?, 1, 1)', ['c1', 'c1', 'c2', 'c2'])
  for (const [id, client, seq] of [
    ['dev-1', 'c1', 1],
    ['dev-2', 'c1', 2],
    ['dev-3', 'c1', 3],
    ['dev-4', 'c2', 4],
  ] as const) {
    await db.exec('INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, seq) VALUES (?, ?, ?, 1, 1, ?)', [id, client, id, seq])
  }
  for (let i = 0; i < 80; i++) await w.write(job(1, T0 - 40 * MIN + i * 30_000, { hardware: hardware(i % 2 ? 30 : 20), network }))
  await w.write(job(2, T0 - 5 * MIN, { hardware: hardware(50) }))
  await w.write(job(4, T0 - 1000, { hardware: hardware(99), network }))
  await w.rollup(T0)
}

const nulls = (n: number) => new Array(n).fill(null)

for (const engine of ENGINES) {
  describe(`the metric reads of other domains on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const clock = manualClock(T0)
    let w: World | undefined
    const setup = async () => {
      if (w) return w
      w = worldOf(handle.db, clock)
      await seed(handle.db, w)
      return w
    }

    test.skipIf(engine.skip)(
      `the fleet figures: newest values, last sample, interval and the CPU minutes of the last hour, per device asked ${engine.skipReason}`,
      async () => {
        const { fleet } = await setup()
        const figures = await fleetFigures({ fleet: await fleet() }, [3, 1, 2], T0 + 1000)
        expect([...figures.keys()]).toEqual([3, 1, 2])
        // the minutes T0-59m … T0: samples from T0-40m (index 19) to T0-30s (index 58)
        expect(figures.get(1)).toEqual({
          latest: {
            cpu_percent: 30,
            ram_percent: real.hardware.ram_percent,
            // what ingest takes from the real sample's partitions
            disk_used_percent: 42.3,
            cpu_temp_c: null,
            download_mbps: real.network.download_mbps,
            upload_mbps: real.network.upload_mbps,
            latency_avg_ms: 12.5,
            packet_loss_percent: null,
          },
          lastSampleAt: T0 - 30_000,
          intervalMs: 30_000,
          spark: [...nulls(19), ...new Array(40).fill(25), null],
        })
        expect(figures.get(2)).toEqual({
          latest: {
            cpu_percent: 50,
            ram_percent: real.hardware.ram_percent,
            // what ingest takes from the real sample's partitions
            disk_used_percent: 42.3,
            cpu_temp_c: null,
            download_mbps: null,
            upload_mbps: null,
            latency_avg_ms: null,
            packet_loss_percent: null,
          },
          lastSampleAt: T0 - 5 * MIN,
          intervalMs: null,
          spark: [...nulls(54), 50, ...nulls(5)],
        })
        expect(figures.get(3)).toMatchObject({ lastSampleAt: null, intervalMs: null, spark: nulls(60), latest: { cpu_percent: null } })
        expect((await fleetFigures({ fleet: await fleet() }, [], T0)).size).toBe(0)
      },
    )

    test.skipIf(engine.skip)(`the scrape's newest values per device, in the order asked, those without a sample left out ${engine.skipReason}`, async () => {
      const w = await setup()
      const rows = await latestValues(w, 'hardware', [3, 2, 1])
      expect(rows.map((r) => [r[0], r[1]])).toEqual([
        [2, T0 - 5 * MIN],
        [1, T0 - 30_000],
      ])
      expect(await latestValues(w, 'network', [2, 3])).toEqual([])
    })

    test.skipIf(engine.skip)(`the operator's counts: samples stored per kind, and those received in the last hour ${engine.skipReason}`, async () => {
      const w = await setup()
      const devices = { seqs: () => [1, 2, 3, 4] } as unknown as MetricsDeps['devices']
      expect(await metricsStats({ reads: w.reads, clock: manualClock(T0 + 30 * MIN), devices })).toEqual({
        metric_rows_hardware: 82,
        metric_rows_network: 81,
        // since T0-30m: device 1's last 60, device 2's one and device 4's one (hardware); 60 + 1 network
        ingest_last_hour: 62 + 61,
      })
    })

    test.skipIf(engine.skip)(
      `the AI's series: every field's hourly averages read once with the summary, answered per field and window ${engine.skipReason}`,
      async () => {
        const w = await setup()
        const later = manualClock(T0 + 2 * 60 * MIN)
        await w.rollup(later.now())
        const deps = {
          reads: w.reads,
          clock: later,
          devices: { ref: (clientId: string, deviceId: string) => ({ id: deviceId, seq: clientId === 'c1' ? Number(deviceId.slice(4)) : 0 }) },
        } as unknown as MetricsDeps
        const series = await fieldSeriesReader(deps, 'c1', 'dev-1', 168)
        expect(series('cpu_percent', 168)).toEqual([{ t: T0 - 60 * MIN, avg: 25 }])
        expect(series('cpu_percent', 1)).toEqual([])
        expect(series('cpu_temp_c', 24)).toEqual([])
        expect(series('latency_avg_ms', 24)).toEqual([{ t: T0 - 60 * MIN, avg: 12.5 }])
        expect(() => series('nope', 24)).toThrow('Unknown metric field nope')
        expect((await fieldSeriesReader(deps, 'c1', 'dev-2', 24))('cpu_percent', 24)).toEqual([{ t: T0 - 60 * MIN, avg: 50 }])
        // one field's series, as the alerts' disk-fill trend reads it
        expect(await fieldSeriesOf(deps, 'c1', 'dev-1', 'latency_avg_ms', 168)).toEqual(series('latency_avg_ms', 168))
        expect(await fieldSeriesOf(deps, 'c1', 'dev-2', 'cpu_percent', 24)).toEqual([{ t: T0 - 60 * MIN, avg: 50 }])
        await expect(fieldSeriesOf(deps, 'c1', 'dev-1', 'nope', 24)).rejects.toMatchObject({ code: 'invalid_parameter' })
        // the AI's source: one read of a device gives its summary and the rules' series on this engine,
        // for any number of devices read in any order (nothing is kept between reads)
        const source = aiMetricsSource(deps)
        const one = await source.read('c1', 'dev-1', 24)
        const two = await source.read('c1', 'dev-2', 24)
        expect(one.summary).toMatchObject({ device_id: 'dev-1', hours: 24, hardware: { samples: 80 }, network: { samples: 80 } })
        expect(one.series('cpu_percent', 24)).toEqual([{ t: T0 - 60 * MIN, avg: 25 }])
        expect(one.series('cpu_percent', 168)).toEqual(series('cpu_percent', 168))
        expect(two.series('cpu_percent', 24)).toEqual([{ t: T0 - 60 * MIN, avg: 50 }])
      },
    )
  })
}

describe('a hub’s memory of sample times (the intervals on PostgreSQL)', () => {
  test('keeps the newest eight distinct times whatever order they arrive in, and answers their median gap', () => {
    const r = recentTimes()
    expect(r.intervals([1])).toEqual(new Map([[1, null]]))
    r.heard(1, 100_000)
    expect(r.intervals([1]).get(1)).toBeNull()
    r.heard(1, 100_000)
    expect(r.intervals([1]).get(1)).toBeNull()
    // a replay arriving newest first, then the live samples
    for (let ts = 90_000; ts >= 10_000; ts -= 10_000) r.heard(1, ts)
    expect(r.intervals([1]).get(1)).toBe(10_000)
    for (let ts = 130_000; ts <= 200_000; ts += 30_000) r.heard(1, ts)
    // newest eight: 190, 160, 130, 100, 90, 80, 70, 60 (thousands): gaps 30,30,30,10,10,10,10
    expect(r.intervals([1, 2])).toEqual(
      new Map([
        [1, 10_000],
        [2, null],
      ]),
    )
    // a time older than the eight kept changes nothing
    r.heard(1, 5_000)
    expect(r.intervals([1]).get(1)).toBe(10_000)
    r.heard(1, 220_000)
    r.heard(1, 250_000)
    expect(r.intervals([1]).get(1)).toBe(30_000)
  })
})

describe('two hubs’ memories of sample times', () => {
  test('each follows the samples it stores and those the other hub announces, so both answer the same interval', async () => {
    const net = linkedPeers(2)
    const clock = manualClock(T0)
    const buses = net.links.map((peers) => createEventBus({ clock, peers }))
    const hubs = buses.map((bus) => {
      const recent = recentTimes()
      const stored = hook<[{ seq?: number; ts: number }]>()
      followSampleTimes(recent, {
        stored: stored.listen,
        peers: (l) => bus.subscribePeers(l),
        ref: (clientId, deviceId) => {
          if (clientId !== 'c1' || deviceId !== 'dev-1') throw new Error('not found')
          return { seq: 1 }
        },
      })
      return { recent, stored, bus }
    })
    // hub 0 stores three samples a minute apart and announces them; hub 1 stores the fourth
    const store = (hub: number, ts: number) => {
      hubs[hub]!.stored.call({ seq: 1, ts })
      hubs[hub]!.bus.publish('c1', 'sample', { device_id: 'dev-1', kind: 'hardware', recorded_at: new Date(ts).toISOString(), values: {} })
    }
    for (const ts of [T0, T0 + MIN, T0 + 2 * MIN]) store(0, ts)
    store(1, T0 + 3 * MIN)
    // a sample of a device this hub cannot find (deleted meanwhile) changes nothing
    hubs[0]!.bus.publish('c1', 'sample', { device_id: 'gone', kind: 'hardware', recorded_at: new Date(T0 + 90_000).toISOString(), values: {} })
    await new Promise((resolve) => setImmediate(resolve))
    for (const hub of hubs)
      expect(hub.recent.intervals([1, 2])).toEqual(
        new Map([
          [1, MIN],
          [2, null],
        ]),
      )
  })
})
