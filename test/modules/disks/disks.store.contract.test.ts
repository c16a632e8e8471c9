import { describe, expect, test } from 'bun:test'
import { createDisksStore, type DisksStore, type ReadingRow } from '../../../src/modules/disks/disks.store'
import { createDisksStorePg } from '../../../src/modules/disks/disks.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The S.M.A.R.T. store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): DisksStore => (db.sqlite ? createDisksStore(db.sqlite) : createDisksStorePg(db.pg!))

const T0 = 1_700_000_000_000
const HOUR = 3_600_000

const reading = (over: Partial<ReadingRow> & { device_id: string; client_id: string; ts: number }): ReadingRow => ({
  name: '/dev/sda',
  model: 'Example HDD',
  serial: 'S1',
  kind: 'ata',
  capacity_bytes: 4e12,
  passed: 1,
  temperature_c: 38.5,
  power_on_hours: 30_000,
  reallocated_sectors: 0,
  pending_sectors: 0,
  uncorrectable_sectors: 0,
  nvme_percentage_used: null,
  nvme_media_errors: null,
  ...over,
})
const report = (device_id: string, client_id: string, ts: number, readings: ReadingRow[], available = 1, unavailable_reason: string | null = null) => ({
  report: { device_id, client_id, available, unavailable_reason, ts },
  readings,
})

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
  await db.exec(
    "INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags, hostname, name) VALUES ('d1', 'c1', 'fp1', 1, 1, '[]', 'web-1', NULL)",
  )
  await db.exec(
    "INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags, hostname, name) VALUES ('d2', 'c1', 'fp2', 1, 1, '[]', 'web-2', 'Alpha')",
  )
  await db.exec(
    "INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags, hostname, name) VALUES ('d9', 'c2', 'fp9', 1, 1, '[]', 'other', NULL)",
  )
}

for (const engine of ENGINES) {
  describe(`disks store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: DisksStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`a report reads back with its readings, by name, for its client only ${engine.skipReason}`, async () => {
      await ready()
      const sdb = reading({ device_id: 'd1', client_id: 'c1', ts: T0, name: '/dev/sdb', kind: 'sat', model: null, serial: null, passed: null })
      const nvme = reading({
        device_id: 'd1',
        client_id: 'c1',
        ts: T0,
        name: '/dev/nvme0',
        kind: 'nvme',
        capacity_bytes: 1e12,
        reallocated_sectors: null,
        pending_sectors: null,
        uncorrectable_sectors: null,
        nvme_percentage_used: 3.5,
        nvme_media_errors: 0,
      })
      const sda = reading({ device_id: 'd1', client_id: 'c1', ts: T0, reallocated_sectors: 8 })
      expect(await store.apply(report('d1', 'c1', T0, [sdb, nvme, sda]))).toBe(true)
      expect(await store.report('c1', 'd1')).toEqual({ device_id: 'd1', client_id: 'c1', available: 1, unavailable_reason: null, ts: T0 })
      expect(await store.readingsAt('c1', 'd1', T0)).toEqual([nvme, sda, sdb])
      // another client's device: nothing
      expect(await store.report('c2', 'd1')).toBeNull()
      expect(await store.readingsAt('c2', 'd1', T0)).toEqual([])
      expect(await store.oldestSince('c2', 'd1', 0)).toEqual(new Map())
      expect(await store.report('c1', 'd2')).toBeNull()
    })

    test.skipIf(skip)(`an older report (a replay) adds its readings but does not replace the newer; a newer one does ${engine.skipReason}`, async () => {
      await ready()
      const later = T0 + 2 * HOUR
      expect(await store.apply(report('d1', 'c1', later, [reading({ device_id: 'd1', client_id: 'c1', ts: later, reallocated_sectors: 12 })]))).toBe(true)
      const replay = T0 + HOUR
      expect(
        await store.apply(report('d1', 'c1', replay, [reading({ device_id: 'd1', client_id: 'c1', ts: replay, reallocated_sectors: 10 })], 0, 'gone')),
      ).toBe(false)
      expect(await store.report('c1', 'd1')).toEqual({ device_id: 'd1', client_id: 'c1', available: 1, unavailable_reason: null, ts: later })
      expect((await store.readingsAt('c1', 'd1', replay)).map((r) => r.reallocated_sectors)).toEqual([10])
      // the same report again: nothing changes, no duplicate reading
      expect(await store.apply(report('d1', 'c1', later, [reading({ device_id: 'd1', client_id: 'c1', ts: later, reallocated_sectors: 99 })]))).toBe(false)
      expect((await store.readingsAt('c1', 'd1', later)).map((r) => r.reallocated_sectors)).toEqual([12])
      // per disk, its oldest reading since a time
      expect(await store.oldestSince('c1', 'd1', 0)).toEqual(
        new Map<string, number | null>([
          ['/dev/sda', 8],
          ['/dev/sdb', 0],
          ['/dev/nvme0', null],
        ]),
      )
      expect(await store.oldestSince('c1', 'd1', T0 + 1)).toEqual(new Map([['/dev/sda', 10]]))
      expect(await store.oldestSince('c1', 'd1', later + 1)).toEqual(new Map())
    })

    test.skipIf(skip)(`a report without smartctl keeps its reason ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.apply(report('d9', 'c2', T0, [], 0, 'smartctl not found'))).toBe(true)
      expect(await store.report('c2', 'd9')).toEqual({ device_id: 'd9', client_id: 'c2', available: 0, unavailable_reason: 'smartctl not found', ts: T0 })
      expect(await store.readingsAt('c2', 'd9', T0)).toEqual([])
    })

    test.skipIf(skip)(`failing disks are those of each device's newest report, of the client only, by device name then disk ${engine.skipReason}`, async () => {
      await ready()
      // d1's newest report is healthy (its older failing readings do not count); d2 has two failing disks
      await store.apply(report('d1', 'c1', T0 - HOUR, [reading({ device_id: 'd1', client_id: 'c1', ts: T0 - HOUR, passed: 0 })]))
      await store.apply(
        report('d2', 'c1', T0, [
          reading({ device_id: 'd2', client_id: 'c1', ts: T0, name: '/dev/sdc', pending_sectors: 2 }),
          reading({ device_id: 'd2', client_id: 'c1', ts: T0, name: '/dev/sda', passed: 0, model: null }),
          reading({ device_id: 'd2', client_id: 'c1', ts: T0, name: '/dev/sdb' }),
        ]),
      )
      await handle.db.exec(
        "INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags, hostname) VALUES ('d3', 'c1', 'fp3', 1, 1, '[]', 'Zulu')",
      )
      await store.apply(report('d3', 'c1', T0, [reading({ device_id: 'd3', client_id: 'c1', ts: T0, uncorrectable_sectors: 1 })]))
      expect(await store.failing('c1')).toEqual([
        { device_id: 'd2', device_name: 'Alpha', name: '/dev/sda', model: null, ts: T0 },
        { device_id: 'd2', device_name: 'Alpha', name: '/dev/sdc', model: 'Example HDD', ts: T0 },
        { device_id: 'd3', device_name: 'Zulu', name: '/dev/sda', model: 'Example HDD', ts: T0 },
      ])
      expect(await store.failing('c2')).toEqual([])
    })

    test.skipIf(skip)(`prune drops readings older than a time but never a device's newest report ${engine.skipReason}`, async () => {
      await ready()
      const before = (await store.readingsAt('c1', 'd1', T0)).length
      expect(before).toBe(3)
      // d1: readings at T0 - 1h, T0, T0 + 1h, T0 + 2h (newest); d2, d3, d9 at T0 (their newest)
      expect(await store.prune(T0 + 10 * HOUR)).toBe(1 + 3 + 1)
      expect(await store.readingsAt('c1', 'd1', T0)).toEqual([])
      expect((await store.readingsAt('c1', 'd1', T0 + 2 * HOUR)).length).toBe(1)
      expect((await store.readingsAt('c1', 'd2', T0)).length).toBe(3)
      expect(await store.prune(T0 + 10 * HOUR)).toBe(0)
    })
  })
}
