import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { rng } from '../../../scripts/bench/storage-samples'
import { openHourCounts } from '../../../src/modules/metrics/metrics.history.hours'

const HOUR = 3_600_000
const T0 = Date.UTC(2026, 0, 1)

/** The raw table as far as the counts read it: (device_seq, ts), unique. */
function rawTable() {
  const db = new Database(':memory:')
  db.run('CREATE TABLE metric_samples (id INTEGER PRIMARY KEY, device_seq INTEGER NOT NULL, ts INTEGER NOT NULL, kinds INTEGER NOT NULL DEFAULT 3)')
  db.run('CREATE UNIQUE INDEX metric_samples_device_ts ON metric_samples (device_seq, ts)')
  const insert = db.query<never, [number, number]>('INSERT OR IGNORE INTO metric_samples (device_seq, ts) VALUES (?, ?)')
  const truth = db.query<{ ts: number }, [number, number, number, number]>(
    'SELECT ts FROM metric_samples WHERE device_seq = ? AND ts >= ? AND ts <= ? ORDER BY ts DESC LIMIT 1 OFFSET ?',
  )
  const count = db.query<{ n: number }, [number, number, number]>('SELECT count(*) AS n FROM metric_samples WHERE device_seq = ? AND ts >= ? AND ts <= ?')
  return {
    db,
    insert: (seq: number, ts: number) => void insert.run(seq, ts),
    /** what stepping over the index finds */
    at: (seq: number, from: number, to: number, p: number) => truth.get(seq, from, to, p)?.ts ?? null,
    count: (seq: number, from: number, to: number) => count.get(seq, from, to)!.n,
  }
}

describe('hour counts of the raw index (metrics.history.hours.ts)', () => {
  test('every position is the one stepping over the index finds, as rows come, go and come late, within small bounds', () => {
    const raw = rawTable()
    // spans of 10 hours (the rows cover 12: the oldest are stepped over), 24 hours in all: two
    // devices' spans fit, a third drops the one read longest ago
    const hours = openHourCounts(raw.db, { spanHours: 10, cachedHours: 24 })
    const r = rng(7)
    const devices = [1, 2, 3]
    for (const seq of devices) for (let i = 0; i < 500; i++) raw.insert(seq, T0 + Math.floor(r() * 10 * HOUR))
    const check = (seq: number) => {
      // whole range, ranges cut mid-hour, positions past the end
      const ranges: [number, number][] = [
        [0, Number.MAX_SAFE_INTEGER],
        [T0 + 2 * HOUR + 123_456, T0 + 7 * HOUR + 999],
        [T0 + Math.floor(r() * 10 * HOUR), T0 + 11 * HOUR],
        [T0 - HOUR, T0 + Math.floor(r() * 10 * HOUR)],
      ]
      for (const [from, to] of ranges) {
        const n = raw.count(seq, from, to)
        for (const p of [0, 1, n >> 1, Math.max(0, n - 1), n, n + 7, Math.floor(r() * n)]) {
          expect([seq, from, to, p, hours.at(seq, from, to, p)]).toEqual([seq, from, to, p, raw.at(seq, from, to, p)])
        }
      }
      expect(hours.held().hours).toBeLessThanOrEqual(24)
    }
    for (let round = 0; round < 40; round++) {
      const seq = devices[Math.floor(r() * devices.length)]!
      check(seq)
      const what = r()
      const other = devices[Math.floor(r() * devices.length)]!
      if (what < 0.35) {
        // samples sealed into hours already counted, some late (before the oldest), some new hours
        for (let i = 0; i < 20; i++) raw.insert(other, T0 + Math.floor((r() * 12 - 1) * HOUR))
      } else if (what < 0.5) {
        // a pruning: the oldest rows of every device, in bounded statements
        const cut = T0 + Math.floor(r() * 6 * HOUR)
        raw.db.run('DELETE FROM metric_samples WHERE rowid IN (SELECT rowid FROM metric_samples WHERE ts < ? LIMIT 50)', [cut])
      } else if (what < 0.6) {
        // a device's rows of two hours gone (a deleted device is all of them)
        const from = T0 + Math.floor(r() * 10 * HOUR)
        raw.db.run('DELETE FROM metric_samples WHERE device_seq = ? AND ts >= ? AND ts < ?', [other, from, from + 2 * HOUR])
      } else if (what < 0.75) {
        // rows moved in time (nothing does it today; the counts must follow should anything)
        for (let i = 0; i < 5; i++)
          raw.db.run(
            'UPDATE OR IGNORE metric_samples SET ts = ts + ? WHERE rowid = (SELECT rowid FROM metric_samples WHERE device_seq = ? ORDER BY ts LIMIT 1 OFFSET ?)',
            [Math.floor((r() - 0.5) * 8 * HOUR), other, Math.floor(r() * 300)],
          )
      } else if (what < 0.85) {
        // rows written and taken back in a transaction: read inside it, and after
        raw.db.run('BEGIN')
        for (let i = 0; i < 30; i++) raw.insert(other, T0 + Math.floor(r() * 10 * HOUR))
        check(other)
        raw.db.run('ROLLBACK')
      }
    }
    for (const seq of devices) check(seq)
    expect(hours.held().devices).toBeLessThanOrEqual(2)
  })

  test('a device without rows, and one whose rows are all gone, has no position', () => {
    const raw = rawTable()
    const hours = openHourCounts(raw.db)
    expect(hours.at(1, 0, Number.MAX_SAFE_INTEGER, 0)).toBeNull()
    for (let i = 0; i < 10; i++) raw.insert(1, T0 + i * HOUR)
    expect(hours.at(1, 0, Number.MAX_SAFE_INTEGER, 9)).toBe(T0)
    raw.db.run('DELETE FROM metric_samples')
    expect(hours.at(1, 0, Number.MAX_SAFE_INTEGER, 0)).toBeNull()
    expect(hours.held()).toEqual({ devices: 0, hours: 0 })
  })

  test('one connection has one set of counts: a second caller does not take the marks the first relies on', () => {
    const raw = rawTable()
    const first = openHourCounts(raw.db)
    for (let i = 0; i < 50; i++) raw.insert(1, T0 + i * 60_000)
    expect(first.at(1, 0, Number.MAX_SAFE_INTEGER, 49)).toBe(T0)
    expect(openHourCounts(raw.db)).toBe(first)
    // rows sealed into the hour counted: the first caller's counts follow
    for (let i = 0; i < 10; i++) raw.insert(1, T0 + i * 60_000 + 30_000)
    expect(first.at(1, 0, Number.MAX_SAFE_INTEGER, 59)).toBe(raw.at(1, 0, Number.MAX_SAFE_INTEGER, 59))
    expect(first.at(1, 0, Number.MAX_SAFE_INTEGER, 59)).toBe(T0)
  })
})
