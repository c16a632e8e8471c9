import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeBackup } from '../../../src/db/backup'
import { openDatabase } from '../../../src/db/connection'
import { restoreBackup } from '../../../src/db/restore'
import { BLOCK_FILE_MS, SWEEP_SLICE, blockFileOf, blockLogDir, carryBlocksInto, openBlockLog } from '../../../src/modules/metrics/metrics.block.log'
import { memorySegments } from '../../../src/modules/metrics/metrics.segment-files'
import { createBlockStore } from '../../../src/modules/metrics/metrics.block.store'
import { BLOCK_FILES, STORAGE_TIERS, metricFileBytes } from '../../../src/modules/metrics/metrics.usage'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'
import { createTenant } from '../../helpers/fixtures'
import { measure } from '../../../src/modules/storage/storage.service'

const T0 = Date.UTC(2026, 0, 1)
const MIN = 60_000
const HOUR = 60 * MIN

type Tenant = Awaited<ReturnType<typeof tenantWithDevices>>

function inTempDir(run: (dir: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-blocks-'))
    try {
      await run(dir)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** `count` samples of both parts every 10 s from `from`, for one device. */
async function post(t: TestApp, a: Tenant, deviceId: string, from: number, count: number, salt = 0) {
  const items = Array.from({ length: count }, (_, i) => ({
    recorded_at: new Date(from + i * 10_000).toISOString(),
    hardware: { ...hardwareSample(i), salt },
    network: networkSample(i),
  }))
  for (let i = 0; i < items.length; i += 200) {
    const r = await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 200) }, headers: { ...a.keyHeaders, 'x-device-id': deviceId } })
    expect(r.status).toBe(201)
  }
}

/** A hub on a database file in `dir` with `count` samples from T0 of one device, sealed at T0 + 4 h. */
async function sealedHours(dir: string, count: number) {
  const db = join(dir, 'vigil.db')
  const t = testApp({ db: openDatabase(db) })
  const a = await tenantWithDevices(t)
  t.clock.set(T0 + 4 * HOUR)
  await post(t, a, a.deviceId, T0, count)
  await t.modules.sealer.run()
  return { db, t, a }
}

const token = async (t: TestApp, a: Tenant) => ({
  authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}`,
})

/** Every read that shows the nested fields, as the bytes it answers. */
async function reads(t: TestApp, a: Tenant, deviceId: string) {
  const headers = await token(t, a)
  const out: string[] = []
  for (const p of [
    `/v1/metrics/hardware/${deviceId}?limit=1000`,
    `/v1/metrics/network/${deviceId}?limit=1000&offset=100`,
    `/v1/metrics/series/${deviceId}?kind=hardware&fields=cpu_per_core,disk_partitions&start=${new Date(T0).toISOString()}&end=${new Date(T0 + 2 * HOUR).toISOString()}`,
  ]) {
    const r = await t.request('GET', p, { headers })
    expect(r.status).toBe(200)
    out.push(r.text)
  }
  return out
}

const count = (t: TestApp, table: string) => t.db.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n
const files = (db: string) => (existsSync(blockLogDir(db)) ? readdirSync(blockLogDir(db)).sort() : [])
const hourFile = (ts: number) => `${Math.floor(ts / BLOCK_FILE_MS)}.log`

describe('sealed blocks in files beside the database (metrics.block.log.ts)', () => {
  test(
    'blocks are appended to a file per hour of their start, nothing of them in SQLite but their index, and read back the same after a restart',
    inTempDir(async (dir) => {
      const db = join(dir, 'vigil.db')
      const t = testApp({ db: openDatabase(db) })
      const a = await tenantWithDevices(t)
      t.clock.set(T0 + 4 * HOUR)
      await post(t, a, a.deviceId, T0, 720)
      const before = await reads(t, a, a.deviceId)
      await t.modules.sealer.run()
      expect(count(t, 'metric_block_index')).toBe(12)
      expect(count(t, 'metric_blocks') + count(t, 'metric_nested')).toBe(0)
      expect(files(db)).toEqual([hourFile(T0), hourFile(T0 + HOUR)])
      expect(statSync(join(blockLogDir(db), hourFile(T0))).mode & 0o777).toBe(0o600)
      expect(await reads(t, a, a.deviceId)).toEqual(before)
      t.db.sqlite.close(false)
      const again = testApp({ db: openDatabase(db), clock: t.clock })
      expect(await reads(again, a, a.deviceId)).toEqual(before)
      again.db.close()
    }),
  )

  test(
    'bytes a sealing appended without its COMMIT (a kill, a failed transaction) point nowhere and are cut off; nothing is lost',
    inTempDir(async (dir) => {
      const db = join(dir, 'vigil.db')
      const t = testApp({ db: openDatabase(db) })
      const a = await tenantWithDevices(t)
      t.clock.set(T0 + 4 * HOUR)
      await post(t, a, a.deviceId, T0, 360)
      const before = await reads(t, a, a.deviceId)
      // a transaction that fails after the bytes are written: they are cut off again, the samples stay unsealed
      const blocks = createBlockStore(t.db.sqlite)
      const b = blocks.prepare(t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq, T0)!
      t.db.sqlite.run("CREATE TEMP TRIGGER fail_seal BEFORE INSERT ON metric_block_index BEGIN SELECT RAISE(ABORT, 'disk full'); END")
      await expect(blocks.commit([b])).rejects.toThrow('disk full')
      t.db.sqlite.run('DROP TRIGGER temp.fail_seal')
      expect(existsSync(join(blockLogDir(db), hourFile(T0))) ? statSync(join(blockLogDir(db), hourFile(T0))).size : 0).toBe(0)
      expect(await reads(t, a, a.deviceId)).toEqual(before)
      await t.modules.sealer.run()
      const file = join(blockLogDir(db), hourFile(T0))
      const size = statSync(file).size
      // a sealing killed between its write and its COMMIT leaves bytes after the last block
      appendFileSync(file, new Uint8Array(5000).fill(7))
      t.db.sqlite.close(false)
      const again = testApp({ db: openDatabase(db), clock: t.clock })
      await again.modules.sealer.run()
      expect(statSync(file).size).toBe(size)
      expect(await reads(again, a, a.deviceId)).toEqual(before)
      again.db.close()
    }),
  )

  test(
    'a block sealed again with late data is appended anew (the old bytes are garbage until the file goes); blocks kept as BLOBs by the previous release read, and move into a file when sealed again',
    inTempDir(async (dir) => {
      const { db, t, a } = await sealedHours(dir, 720)
      const seq = t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq
      // the second hour's blocks as the previous release kept them: BLOBs in metric_blocks and metric_nested
      const places = t.db.sqlite.query<{ start: number }, []>(`SELECT start FROM metric_block_index WHERE start >= ${T0 + HOUR}`).all()
      const copy = new Database(':memory:')
      copy.run('CREATE TABLE metric_block_index (device_seq, start, file, at, length, nested_length)')
      copy.run('CREATE TABLE metric_blocks (device_seq, start, data, PRIMARY KEY (device_seq, start))')
      copy.run('CREATE TABLE metric_nested (device_seq, start, data, PRIMARY KEY (device_seq, start))')
      copy.run('CREATE TABLE metric_samples (device_seq, ts)')
      copy.run('CREATE TABLE metric_block_wipes (id)')
      const rows = t.db.sqlite.query(`SELECT * FROM metric_block_index WHERE start >= ${T0 + HOUR}`).all() as Record<string, number>[]
      for (const r of rows)
        copy.query('INSERT INTO metric_block_index VALUES (?, ?, ?, ?, ?, ?)').run(r.device_seq!, r.start!, r.file!, r.at!, r.length!, r.nested_length!)
      expect(carryBlocksInto(copy, db)).toEqual({ blocks: 6, gone: 0 })
      for (const r of copy.query<{ device_seq: number; start: number; data: Uint8Array }, []>('SELECT * FROM metric_blocks').all())
        t.db.sqlite.query('INSERT INTO metric_blocks (device_seq, start, data) VALUES (?, ?, ?)').run(r.device_seq, r.start, r.data)
      for (const r of copy.query<{ device_seq: number; start: number; data: Uint8Array }, []>('SELECT * FROM metric_nested').all())
        t.db.sqlite.query('INSERT INTO metric_nested (device_seq, start, data) VALUES (?, ?, ?)').run(r.device_seq, r.start, r.data)
      copy.close()
      t.db.sqlite.run(`DELETE FROM metric_block_index WHERE start >= ${T0 + HOUR}`)
      expect(places.length).toBe(6)
      expect(count(t, 'metric_blocks')).toBe(6)
      const before = await reads(t, a, a.deviceId)
      t.db.sqlite.close(false)
      const again = testApp({ db: openDatabase(db), clock: t.clock })
      expect(await reads(again, a, a.deviceId)).toEqual(before)
      // the second hour's file, which nothing points into now, goes at the first sealing run after a start
      await again.modules.sealer.run()
      expect(files(db)).toEqual([hourFile(T0)])
      expect(await reads(again, a, a.deviceId)).toEqual(before)

      // late samples for a block in a file and for a BLOB: each is sealed again into its hour's file
      const late = (ts: number) => ({ recorded_at: new Date(ts).toISOString(), hardware: { ...hardwareSample(3), late: true }, network: networkSample(4) })
      const r = await again.request('POST', '/v1/metrics/bulk', {
        body: { items: [late(T0 + 5_000), late(T0 + HOUR + 5_000)] },
        headers: { ...a.keyHeaders, 'x-device-id': a.deviceId },
      })
      expect(r.status).toBe(201)
      const first = join(blockLogDir(db), hourFile(T0))
      const sizeBefore = statSync(first).size
      const withLate = await reads(again, a, a.deviceId)
      await again.modules.sealer.run()
      expect(await reads(again, a, a.deviceId)).toEqual(withLate)
      expect(JSON.parse(withLate[0]!).items.filter((i: { late?: boolean }) => i.late).length).toBe(2)
      expect(statSync(first).size).toBeGreaterThan(sizeBefore) // appended, the old version left in place
      expect(again.db.sqlite.query<{ n: number }, [number]>('SELECT count(*) AS n FROM metric_blocks WHERE device_seq = ?').get(seq)!.n).toBe(5)
      expect(files(db)).toEqual([hourFile(T0), hourFile(T0 + HOUR)])
      again.db.close()
    }),
  )

  test(
    'retention removes a file once no block points into it, and the files count in the raw tier',
    inTempDir(async (dir) => {
      const { db, t, a } = await sealedHours(dir, 1080)
      expect(files(db)).toEqual([hourFile(T0), hourFile(T0 + HOUR), hourFile(T0 + 2 * HOUR)])
      const bytes = metricFileBytes(t.db.sqlite)()
      const onDisk = files(db).reduce((s, f) => s + statSync(join(blockLogDir(db), f)).size, 0)
      expect(bytes.get(BLOCK_FILES)).toBe(onDisk)
      expect(STORAGE_TIERS.find((x) => x.tier === 'raw')!.tables).toContain(BLOCK_FILES)
      // the first hour and a half past the cut-off: the first file goes, the second keeps its last three blocks
      const store = createBlockStore(t.db.sqlite)
      t.db.sqlite.run(`DELETE FROM main.metric_samples WHERE ts < ${T0 + 90 * MIN}`)
      // a file past the cut-off nothing points into (a crash's leftover): the pruning looks only at
      // the files it can have emptied, up to the cut-off's; the sweep at start removes the others
      appendFileSync(join(blockLogDir(db), hourFile(T0 + 5 * HOUR)), '')
      expect(await store.prune(T0 + 90 * MIN)).toBe(9)
      expect(files(db)).toEqual([hourFile(T0 + HOUR), hourFile(T0 + 2 * HOUR), hourFile(T0 + 5 * HOUR)].sort())
      await store.sweep()
      expect(files(db)).toEqual([hourFile(T0 + HOUR), hourFile(T0 + 2 * HOUR)])
      const left = files(db).reduce((s, f) => s + statSync(join(blockLogDir(db), f)).size, 0)
      expect(left).toBeLessThan(onDisk)
      expect(metricFileBytes(t.db.sqlite)().get(BLOCK_FILES)).toBe(left)
      const headers = await token(t, a)
      const page = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?limit=1000`, { headers })
      expect(page.body.items.length).toBe(1080 - 540)
      expect(page.body.items.at(-1)).toMatchObject({ recorded_at: new Date(T0 + 90 * MIN).toISOString() })
    }),
  )

  test(
    "a pruning takes the blocks wholly past the cut-off, the one starting an hour's file included, and no later one",
    inTempDir(async (dir) => {
      const { t } = await sealedHours(dir, 1080)
      const store = createBlockStore(t.db.sqlite)
      const starts = () =>
        t.db.sqlite
          .query<{ start: number }, []>('SELECT start FROM metric_block_index ORDER BY start')
          .all()
          .map((r) => r.start)
      // the cut-off's last whole block starts exactly at the second hour, the first block of its file
      t.db.sqlite.run(`DELETE FROM main.metric_samples WHERE ts < ${T0 + HOUR + 10 * MIN}`)
      expect(await store.prune(T0 + HOUR + 10 * MIN - 1)).toBe(6)
      expect(starts()[0]).toBe(T0 + HOUR)
      expect(await store.prune(T0 + HOUR + 10 * MIN)).toBe(1)
      expect(starts()[0]).toBe(T0 + HOUR + 10 * MIN)
      expect(starts().length).toBe(11)
      t.db.close()
    }),
  )

  test(
    'a pruning removes a file only after the WAL is flushed, and keeps one a block was written into meanwhile',
    inTempDir(async (dir) => {
      const { db, t } = await sealedHours(dir, 1080)
      const store = createBlockStore(t.db.sqlite)
      t.db.sqlite.run(`DELETE FROM main.metric_samples WHERE ts < ${T0 + 90 * MIN}`)
      // the deletes commit at once; the file's removal waits for the flush, off the event loop
      const pruning = store.prune(T0 + 90 * MIN)
      expect(files(db)).toContain(hourFile(T0))
      // meanwhile a block is written into that file (a late replay's hour, sealed)
      const seq = t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq
      t.db.sqlite.run('INSERT INTO metric_block_index (device_seq, start, file, at, length, nested_length) VALUES (?, ?, ?, 0, 0, 0)', [
        seq,
        T0 - HOUR,
        blockFileOf(T0),
      ])
      expect(await pruning).toBe(9)
      expect(files(db)).toEqual([hourFile(T0), hourFile(T0 + HOUR), hourFile(T0 + 2 * HOUR)])
      // once nothing points into it, the next pruning removes it
      expect(await store.prune(T0 + 90 * MIN)).toBe(1)
      expect(files(db)).toEqual([hourFile(T0 + HOUR), hourFile(T0 + 2 * HOUR)])
      t.db.close()
    }),
  )

  test(
    'the sweep at start goes a slice of files at a time: it removes the files nothing points into and cuts the bytes past the last block',
    inTempDir(async (dir) => {
      const { db, t, a } = await sealedHours(dir, 720)
      const sealed = files(db)
      expect(sealed).toEqual([hourFile(T0), hourFile(T0 + HOUR)])
      const before = await reads(t, a, a.deviceId)
      t.db.close()
      // what crashes leave: bytes of a sealing killed before its COMMIT at the end of a file, and
      // more files nothing points into than one slice holds
      const last = join(blockLogDir(db), hourFile(T0 + HOUR))
      const size = statSync(last).size
      appendFileSync(last, new Uint8Array(100).fill(7))
      const strays = Array.from({ length: 2 * SWEEP_SLICE + 10 }, (_, i) => hourFile(T0 - (i + 1) * HOUR))
      for (const f of strays) appendFileSync(join(blockLogDir(db), f), new Uint8Array(16))
      const again = testApp({ db: openDatabase(db), clock: t.clock })
      let pauses = 0
      await createBlockStore(again.db.sqlite).sweep(async () => void pauses++)
      expect(pauses).toBe(Math.floor((strays.length + sealed.length - 1) / SWEEP_SLICE))
      expect(files(db)).toEqual(sealed)
      expect(statSync(last).size).toBe(size)
      expect(await reads(again, a, a.deviceId)).toEqual(before)
      again.db.close()
    }),
  )

  test(
    'a sealing run with nothing to wipe looks at no file; the sweep at start removes a file nothing points into',
    inTempDir(async (dir) => {
      const db = join(dir, 'vigil.db')
      const t = testApp({ db: openDatabase(db) })
      const a = await tenantWithDevices(t)
      t.clock.set(T0 + 3 * HOUR)
      await post(t, a, a.deviceId, T0, 360)
      await t.modules.sealer.run()
      const sealed = files(db)
      expect(sealed).toEqual([hourFile(T0)])
      // what a crash between a pruning's transaction and its removal of the files would leave
      const stray = hourFile(T0 - 24 * HOUR)
      appendFileSync(join(blockLogDir(db), stray), new Uint8Array(64))
      t.clock.set(T0 + 3 * HOUR + MIN)
      await t.modules.sealer.run()
      expect(files(db)).toEqual([stray, ...sealed])
      await createBlockStore(t.db.sqlite).sweep()
      expect(files(db)).toEqual(sealed)
      const page = await t.request('GET', `/v1/metrics/hardware/${a.deviceId}?limit=1000`, { headers: await token(t, a) })
      expect(page.body.items.length).toBe(360)
      t.db.close()
    }),
  )

  test(
    'the operator page counts the block files in the raw tier and in the space the data uses',
    inTempDir(async (dir) => {
      const { t } = await sealedHours(dir, 720)
      await measure(t.modules.storage)
      const operator = await createTenant(t, { role: 'admin' })
      const r = await t.request('GET', '/v1/admin/storage', { headers: operator.userHeaders })
      expect(r.status).toBe(200)
      const files = metricFileBytes(t.db.sqlite)()
      expect(files.get(BLOCK_FILES)).toBeGreaterThan(5_000)
      const pages = t.db.sqlite
        .query<{ n: number }, []>('SELECT (SELECT page_count FROM pragma_page_count) - (SELECT freelist_count FROM pragma_freelist_count) AS n')
        .get()!.n
      const pageSize = t.db.sqlite.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
      expect(r.body.database_bytes).toBe(pages * pageSize + [...files.values()].reduce((x, y) => x + y, 0))
      expect(r.body.tiers[0].bytes).toBeGreaterThan(files.get(BLOCK_FILES)!)
      t.db.close()
    }),
  )

  test(
    "the database's size in the operator's stats and on /metrics is the file with the metric files beside it",
    inTempDir(async (dir) => {
      const { t } = await sealedHours(dir, 720)
      const files = [...metricFileBytes(t.db.sqlite)().values()].reduce((x, y) => x + y, 0)
      const { n: pages } = t.db.sqlite.query<{ n: number }, []>('SELECT page_count AS n FROM pragma_page_count').get()!
      const pageSize = t.db.sqlite.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
      expect(files).toBeGreaterThan(5_000)
      const operator = await createTenant(t, { role: 'admin' })
      const stats = await t.request('GET', '/v1/admin/stats', { headers: operator.userHeaders })
      expect(stats.status).toBe(200)
      expect(stats.body.database_bytes).toBe(pages * pageSize + files)
      const scrape = await t.request('GET', '/metrics', { headers: operator.userHeaders })
      expect(scrape.text).toContain(`\nvigil_database_size_bytes ${pages * pageSize + files}\n`)
      t.db.close()
    }),
  )

  test(
    "deleting a device overwrites its blocks' bytes with zeros on disk and drops its index rows; the other devices' blocks read on",
    inTempDir(async (dir) => {
      const db = join(dir, 'vigil.db')
      const t = testApp({ db: openDatabase(db) })
      const a = await tenantWithDevices(t, 2)
      t.clock.set(T0 + 4 * HOUR)
      for (const d of a.deviceIds) await post(t, a, d, T0, 360, d === a.deviceIds[0] ? 0xbeef : 1)
      await t.modules.sealer.run()
      const keep = await reads(t, a, a.deviceIds[1]!)
      const [gone] = t.db.sqlite
        .query<{ seq: number }, []>('SELECT seq FROM devices ORDER BY seq')
        .all()
        .map((r) => r.seq)
      const ranges = t.db.sqlite
        .query<{ at: number; length: number; nested_length: number }, [number]>('SELECT at, length, nested_length FROM metric_block_index WHERE device_seq = ?')
        .all(gone!)
      expect(ranges.length).toBe(6)
      const file = join(blockLogDir(db), hourFile(T0))
      const nonZero = (bytes: Uint8Array) => bytes.some((b) => b !== 0)
      expect(ranges.every((r) => nonZero(readFileSync(file).subarray(r.at, r.at + 16 + r.length + r.nested_length)))).toBe(true)
      const r = await t.request('DELETE', `/v1/clients/me/devices/${a.deviceIds[0]}`, { headers: await token(t, a) })
      expect(r.status).toBe(204)
      expect(count(t, 'metric_block_index')).toBe(6)
      // the next sealing run (each minute) wipes them
      await t.modules.sealer.run()
      expect(count(t, 'metric_block_wipes')).toBe(0)
      const after = readFileSync(file)
      for (const x of ranges) expect(nonZero(after.subarray(x.at, x.at + 16 + x.length + x.nested_length))).toBe(false)
      expect(await reads(t, a, a.deviceIds[1]!)).toEqual(keep)
      t.db.close()
    }),
  )

  test(
    'vigil backup of a database not migrated to the block files yet (the new executable before its first start) carries its BLOBs as they are',
    inTempDir(async (dir) => {
      const db = join(dir, 'vigil.db')
      const t = testApp({ db: openDatabase(db) })
      t.db.sqlite.run('DROP TRIGGER metric_block_index_device_gone')
      t.db.sqlite.run('DROP TABLE metric_block_index')
      t.db.close()
      expect(() => writeBackup({ source: db, target: join(dir, 'backup.db'), force: false, secrets: [], version: 'test', now: T0 })).not.toThrow()
    }),
  )

  test(
    'a backup carries every block as BLOBs in its one file; the restored instance serves every sample',
    inTempDir(async (dir) => {
      const data = join(dir, 'data')
      mkdirSync(data)
      const { db, t, a } = await sealedHours(data, 720)
      const before = await reads(t, a, a.deviceId)
      writeBackup({ source: db, target: join(dir, 'backup.db'), force: false, secrets: [], version: 'test', now: T0 })
      const backup = new Database(join(dir, 'backup.db'), { readonly: true })
      expect(backup.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_blocks').get()!.n).toBe(12)
      expect(backup.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_block_index').get()!.n).toBe(0)
      backup.close()
      t.db.close()
      const restored = restoreBackup(join(dir, 'backup.db'), data, 'aside')
      expect(restored.movedAside).toContain('vigil.db-blocks')
      const again = testApp({ db: openDatabase(db), clock: t.clock })
      expect(await reads(again, a, a.deviceId)).toEqual(before)
      again.db.close()
    }),
  )
})

describe('a block that changes while its bytes are synced', () => {
  test(
    'is left out of the COMMIT (its bytes point nowhere) and sealed by the next run; every sample left reads back',
    inTempDir(async (dir) => {
      const db = join(dir, 'vigil.db')
      const t = testApp({ db: openDatabase(db) })
      const a = await tenantWithDevices(t)
      t.clock.set(T0 + 4 * HOUR)
      const at = (i: number) => new Date(T0 + i * 10_000).toISOString()
      const bulk = async (items: unknown[]) =>
        expect((await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: { ...a.keyHeaders, 'x-device-id': a.deviceId } })).status).toBe(201)
      // ten minutes of hardware, sealed; then their network parts, late: rows with texts of their own to seal again
      await bulk(Array.from({ length: 60 }, (_, i) => ({ recorded_at: at(i), hardware: hardwareSample(i), network: null })))
      await t.modules.sealer.run()
      await bulk(Array.from({ length: 60 }, (_, i) => ({ recorded_at: at(i), hardware: null, network: networkSample(i) })))
      const seq = t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq
      const place = () => t.db.sqlite.query<{ file: number; at: number }, [number]>('SELECT file, at FROM metric_block_index WHERE start = ?').get(T0)
      const sealedAt = place()
      const blocks = createBlockStore(t.db.sqlite)
      const b = blocks.prepare(seq, T0)!
      expect(b.rowIds).toHaveLength(60)
      // the bytes are written and their sync waited for off the event loop; meanwhile a pruning takes one of the samples
      const committing = blocks.commit([b])
      t.db.sqlite.run('DELETE FROM main.metric_samples WHERE id = ?', [b.rowIds[0]!])
      expect(await committing).toEqual({ samples: 0, stale: [b] })
      expect(place()).toEqual(sealedAt)
      await t.modules.sealer.run()
      expect(place()).not.toEqual(sealedAt)
      const page = await t.request('GET', `/v1/metrics/network/${a.deviceId}?limit=1000`, { headers: await token(t, a) })
      expect(page.body.items.map((x: { recorded_at: string }) => x.recorded_at)).toEqual(Array.from({ length: 59 }, (_, i) => at(59 - i)))
      t.db.close()
    }),
  )

  test('its file is not removed meanwhile as one nothing points into: the rows pointing into it are not committed yet', async () => {
    const t = testApp()
    await tenantWithDevices(t)
    const seq = t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq
    const files = memorySegments()
    let synced: () => void = () => {}
    const log = openBlockLog(t.db.sqlite, { ...files, syncOffLoop: () => new Promise<void>((resolve) => (synced = resolve)) })
    const block = { seq, start: T0, data: new Uint8Array([1, 2, 3]), nested: new Uint8Array([4]) }
    const writing = log.write([block], (point) => t.db.sqlite.transaction(() => point(block))())
    // a pruning's removal of unused files, while the new hour's file waits for its sync
    expect(log.removeUnused()).toBe(0)
    expect(files.list()).toEqual([blockFileOf(T0)])
    synced()
    await writing
    expect(log.read(seq, T0)!.load()).toEqual(block.data)
    expect(log.removeUnused()).toBe(0)
  })
})
