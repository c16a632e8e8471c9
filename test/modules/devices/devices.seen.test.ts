import { expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { openDatabase } from '../../../src/db/connection'
import { migrate } from '../../../src/db/migrate'
import { sqliteDevices } from '../../../src/modules/devices/devices.store'
import { tempDirs } from '../../helpers/temp-dirs'

/** On SQLite, last_seen_at lives in a narrow table of its own (device_seen), not in the devices' wide rows. */
const newDir = tempDirs('vigil-device-seen-')
const T0 = 1_700_000_000_000

function open(dir: string) {
  const db = openDatabase(join(dir, 'vigil.db'))
  migrate(db.sqlite, T0)
  return db
}

function seedDevices(db: ReturnType<typeof open>, n: number): number[] {
  db.sqlite.run("INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'c1', 1, 1)")
  const devices = sqliteDevices(db.sqlite)
  const seqs: number[] = []
  for (let i = 0; i < n; i++) {
    // rows as wide as a collector's registration makes them
    const facts = { hostname: `host-${i}.example.internal`, os: 'linux', os_version: '6.8.0-45-generic', arch: 'x86_64', mac_address: '52:54:00:12:34:56' }
    const r = devices.register({ clientId: 'c1', boundTo: null, fingerprint: `fp-${i}-${'f'.repeat(40)}`, facts, max: 1000, newId: `d${i}`, now: T0 })
    if (!('id' in r)) throw new Error('not registered')
    seqs.push(devices.byId('c1', r.id)!.seq)
  }
  return seqs
}

test('marking 100 devices seen in one transaction writes a single page to the WAL, and the devices rows stay unwritten', () => {
  const dir = newDir()
  const db = open(dir)
  const seqs = seedDevices(db, 100)
  const devices = sqliteDevices(db.sqlite)
  const wal = join(dir, 'vigil.db-wal')
  const page = db.sqlite.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
  const sweep = (at: number) => {
    db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
    db.sqlite.transaction(() => {
      for (const seq of seqs) devices.markSeen(seq, at)
    })()
    // a WAL frame is a 24-byte header and a page; the log's own header is 32 bytes
    return (statSync(wal).size - 32) / (page + 24)
  }
  sweep(T0 + 1_000) // the first sweep makes the rows
  // every later sweep rewrites them in place: one leaf, where the devices rows spread over several pages
  expect(sweep(T0 + 31_000)).toBe(1)
  expect(db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM devices WHERE last_seen_at IS NOT NULL').get()!.n).toBe(0)
  expect(devices.byId('c1', 'd7')!.last_seen_at).toBe(T0 + 31_000)
  expect(devices.listForClient('c1').every((d) => d.last_seen_at === T0 + 31_000)).toBe(true)
  db.close()
})

test("reads take the newer of device_seen and the devices row's last_seen_at (what an earlier version or a PostgreSQL hub wrote), and it survives a restart", () => {
  const dir = newDir()
  let db = open(dir)
  const [s0, s1, s2] = seedDevices(db, 3)
  let devices = sqliteDevices(db.sqlite)
  // d0: only the older version's value; d1: both, the row's older; d2: both, the row's newer
  db.sqlite.run("UPDATE devices SET last_seen_at = ? WHERE id IN ('d0', 'd1')", [T0 + 10])
  db.sqlite.run("UPDATE devices SET last_seen_at = ? WHERE id = 'd2'", [T0 + 90])
  devices.markSeen(s1!, T0 + 50)
  devices.markSeen(s2!, T0 + 50)
  const expected = { d0: T0 + 10, d1: T0 + 50, d2: T0 + 90 }
  const read = () => ({
    byId: Object.fromEntries(['d0', 'd1', 'd2'].map((id) => [id, devices.byId('c1', id)!.last_seen_at])),
    list: Object.fromEntries(devices.listForClient('c1').map((d) => [d.id, d.last_seen_at])),
    sweep: Object.fromEntries(devices.lastSeenAll().map((d) => [d.id, d.lastSeenAt])),
  })
  expect(read()).toEqual({ byId: expected, list: expected, sweep: expected })
  expect(devices.byFingerprint('c1', `fp-1-${'f'.repeat(40)}`)!.last_seen_at).toBe(T0 + 50)
  db.close()
  db = open(dir)
  devices = sqliteDevices(db.sqlite)
  expect(read()).toEqual({ byId: expected, list: expected, sweep: expected })
  expect(s0).toBeNumber()
  db.close()
})

test("a deleted device's last report goes with it, and marking a seq without a device writes nothing", () => {
  const db = open(newDir())
  const [s0, s1] = seedDevices(db, 2)
  const devices = sqliteDevices(db.sqlite)
  devices.markSeen(s0!, T0 + 5)
  devices.markSeen(s1!, T0 + 5)
  expect(devices.remove('c1', 'd0', T0 + 6)).toEqual([])
  const rows = () => db.sqlite.query<{ seq: number }, []>('SELECT seq FROM device_seen ORDER BY seq').all()
  expect(rows()).toEqual([{ seq: s1! }])
  // the group commit may mark a device deleted a moment before: no row, no foreign-key failure
  devices.markSeen(s0!, T0 + 7)
  devices.markSeen(9_999, T0 + 7)
  expect(rows()).toEqual([{ seq: s1! }])
  db.close()
})
