import { describe, expect, test } from 'bun:test'
import { appendFileSync, closeSync, existsSync, openSync, writeSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../../src/db/connection'
import { writeBackup } from '../../../src/db/backup'
import { restoreBackup } from '../../../src/db/restore'
import { createHotLog } from '../../../src/modules/metrics/metrics.hot.log'
import { fileSegments, memorySegments } from '../../../src/modules/metrics/metrics.segment-files'
import { decodePayload, readRecords, recordFrame } from '../../../src/modules/metrics/metrics.hot.records'
import { testApp, type TestApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.UTC(2026, 0, 1)

function tempDir() {
  return mkdtempSync(join(tmpdir(), 'vigil-hotlog-'))
}

const bytes = (...xs: number[]) => new Uint8Array(xs)
const payloads = (log: ReturnType<typeof createHotLog>) => [...log.scan()].map((e) => [e.segment, ...e.payload])

describe('the hot records file (metrics.hot.log.ts)', () => {
  for (const where of ['file', 'memory'] as const) {
    test(`${where}: a group's records read back in order; a group undone after its write leaves nothing`, () => {
      const dir = tempDir()
      try {
        const files = () => (where === 'file' ? fileSegments(join(dir, 'hot')) : memory)
        const memory = memorySegments()
        const log = createHotLog(files(), { sync: false })
        expect(log.append(0, bytes(1, 2, 3))).toBe(0)
        expect(log.append(0, bytes(4))).toBe(11)
        log.append(1, bytes(5))
        log.persist()
        log.done()
        log.append(0, bytes(9, 9))
        log.persist()
        log.undo() // the group's COMMIT failed
        log.append(0, bytes(6))
        log.unappend(0) // its request failed before the group was written
        log.persist()
        log.done()
        log.close()
        const again = createHotLog(files(), { sync: false })
        expect(payloads(again)).toEqual([
          [0, 1, 2, 3],
          [0, 4],
          [1, 5],
        ])
        expect(again.read(0, 11, 1)).toEqual(bytes(4))
        again.close()
        // the samples are the owner's alone, as the database is
        if (where === 'file') {
          expect(statSync(join(dir, 'hot')).mode & 0o777).toBe(0o700)
          expect(statSync(join(dir, 'hot', '0.log')).mode & 0o777).toBe(0o600)
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  }

  test('a record made straight into its frame is the bytes earlier builds wrote, and reads back from a segment', () => {
    const r = { deviceSeq: 7, sampleId: 123456789, ts: Date.UTC(2026, 0, 1, 12), kinds: 3, data: bytes(1, 40, 181, 47, 253, 0, 9) }
    const frame = recordFrame(r)
    // what an earlier build wrote for this record (its payload built apart, then copied into its frame)
    expect(Buffer.from(frame).toString('hex')).toBe('2100000042923df0010000000000001c4000000054346f9d41000060dd96b77942030128b52ffd0009')
    const log = createHotLog(memorySegments(), { sync: false })
    log.append(0, bytes(1))
    const at = log.appendFrame(0, frame)
    log.persist()
    log.done()
    const read = [...log.scan()].find((e) => e.at === at)!
    expect(decodePayload(read.payload)).toEqual({ type: 'record', record: r })
  })

  test('a frame cut short or damaged ends what is read, and is cut off before the next append', () => {
    const dir = tempDir()
    try {
      const path = join(dir, 'hot')
      const log = createHotLog(fileSegments(path), { sync: false })
      log.append(0, bytes(1, 1, 1))
      log.append(0, bytes(2, 2, 2))
      log.persist()
      log.close()
      // a write killed half way: the second frame loses its last byte, and some of a third is there
      truncateSync(join(path, '0.log'), 21)
      appendFileSync(join(path, '0.log'), bytes(3, 0, 0))
      // another process reading (a backup) sees the whole records and changes nothing
      expect(statSync(join(path, '0.log')).size).toBe(24)
      const reader = createHotLog(fileSegments(path, true), { sync: false, readOnly: true })
      expect(payloads(reader)).toEqual([[0, 1, 1, 1]])
      reader.close()
      expect(statSync(join(path, '0.log')).size).toBe(24)
      const again = createHotLog(fileSegments(path), { sync: false })
      expect(payloads(again)).toEqual([[0, 1, 1, 1]])
      again.append(0, bytes(4))
      again.persist()
      again.close()
      const third = createHotLog(fileSegments(path), { sync: false })
      expect(payloads(third)).toEqual([
        [0, 1, 1, 1],
        [0, 4],
      ])
      third.close()
      // a damaged byte in a payload: its CRC no longer matches, and it ends what is read
      const fd = openSync(join(path, '0.log'), 'r+')
      writeSync(fd, bytes(7), 0, 1, 8)
      closeSync(fd)
      const fourth = createHotLog(fileSegments(path, true), { sync: false, readOnly: true })
      expect(payloads(fourth)).toEqual([])
      fourth.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

async function reads(t: TestApp, a: { userId: string; clientId: string; deviceId: string }) {
  const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
  const out: string[] = []
  for (const kind of ['hardware', 'network']) {
    const r = await t.handle(new Request(`http://localhost/v1/metrics/${kind}/${a.deviceId}?limit=1000`, { headers }))
    expect(r.status).toBe(200)
    out.push(await r.text())
  }
  return out
}

describe('the newest samples beside the database', () => {
  test('records left in the metric_hot tables (the previous release, a restored backup) move into the files at start, once', async () => {
    const dir = tempDir()
    try {
      const file = join(dir, 'vigil.db')
      const t = testApp({ db: openDatabase(file) })
      t.clock.set(T0)
      const a = await tenantWithDevices(t)
      const items = Array.from({ length: 30 }, (_, i) => ({
        recorded_at: new Date(T0 - 600_000 + i * 10_000).toISOString(),
        hardware: hardwareSample(i % 3),
        network: networkSample(i % 4),
      }))
      expect((await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })).status).toBe(201)
      const before = await reads(t, a)
      // the records as the previous release kept them: rows of metric_hot_<segment % 4>
      const records = readRecords(file)
      expect(records.length).toBe(30)
      t.db.sqlite.close(false)
      rmSync(`${file}-hot`, { recursive: true })
      const legacy = openDatabase(file)
      const insert = legacy.sqlite.prepare('INSERT INTO metric_hot_0 (device_seq, sample_id, ts, kinds, segment, data) VALUES (?, ?, ?, ?, ?, ?)')
      for (const r of records) insert.run(r.deviceSeq, r.sampleId, r.ts, r.kinds, r.segment, r.data)
      insert.finalize()
      legacy.close()

      const again = testApp({ db: openDatabase(file), clock: t.clock })
      expect(await reads(again, a)).toEqual(before)
      expect(again.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_hot_0').get()!.n).toBe(0)
      expect(readRecords(file).length).toBe(30)
      again.db.sqlite.close(false)
      const third = testApp({ db: openDatabase(file), clock: t.clock })
      expect(await reads(third, a)).toEqual(before)
      expect(readRecords(file).length).toBe(30)
      third.db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a backup carries the newest samples, still in their records, and a restore brings them back', async () => {
    const dir = tempDir()
    try {
      const data = join(dir, 'data')
      mkdirSync(data)
      const file = join(data, 'vigil.db')
      const live = testApp({ db: openDatabase(file) })
      live.clock.set(T0)
      const a = await tenantWithDevices(live)
      const items = (from: number) =>
        Array.from({ length: 20 }, (_, i) => ({
          recorded_at: new Date(from + i * 10_000).toISOString(),
          hardware: hardwareSample(i % 3),
          network: networkSample(i % 4),
        }))
      const post = async (from: number) =>
        expect((await live.request('POST', '/v1/metrics/bulk', { body: { items: items(from) }, headers: a.keyHeaders })).status).toBe(201)
      await post(T0 - 600_000)
      const before = await reads(live, a)
      writeBackup({ source: file, target: join(dir, 'backup.db'), force: false, secrets: [], version: 'test', now: T0 })
      // samples after the backup: the restore must not bring them back from the replaced instance's files
      await post(T0 - 300_000)
      live.db.close()
      const restored = restoreBackup(join(dir, 'backup.db'), data, 'aside')
      expect(restored.movedAside).toContain('vigil.db-hot')
      expect(existsSync(`${file}-hot`)).toBe(false)
      const again = testApp({ db: openDatabase(file), clock: live.clock })
      expect(await reads(again, a)).toEqual(before)
      expect(readdirSync(`${file}-hot`).length).toBeGreaterThan(0)
      again.db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
