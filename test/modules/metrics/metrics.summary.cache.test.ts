import { describe, expect, test } from 'bun:test'
import { openDatabase } from '../../../src/db/connection'
import { migrate } from '../../../src/db/migrate'
import { TIERS, type MetricKind, type TierName } from '../../../src/modules/metrics/metrics.fields'
import { tierRowsDue } from '../../../src/modules/metrics/metrics.rollup.tail'
import { read, stepsNow } from '../../../src/modules/metrics/metrics.steps'
import { createMetricsStore, type TierValues } from '../../../src/modules/metrics/metrics.store'
import { sqliteMetricsReads } from '../../../src/modules/metrics/metrics.reads'
import { createTierRowsCache } from '../../../src/modules/metrics/metrics.summary.cache'

const T0 = Date.UTC(2026, 0, 1)
const TEN = 600_000

/** A migrated database, its store, and a cache whose reads are counted. */
function world(maxRows?: number) {
  const db = openDatabase(':memory:')
  migrate(db.sqlite, T0)
  // tier rows of devices that are not registered: the tables alone are what is tested
  db.sqlite.run('PRAGMA foreign_keys = OFF')
  const store = createMetricsStore(db.sqlite)
  const cache = createTierRowsCache(db.sqlite, maxRows)
  let reads = 0
  const get = (kind: MetricKind, tier: TierName, seq: number, from: number, to: number) =>
    cache.tierValues(kind, tier, seq, from, to, () => {
      reads++
      return store.tierValues(kind, tier, seq, from, to)
    })
  const table = (kind: MetricKind, tier: TierName) => `${kind === 'hardware' ? 'metric_hw' : 'metric_net'}_${tier}`
  const put = (kind: MetricKind, tier: TierName, seq: number, bucket: number, n = 1) =>
    db.sqlite.run(`INSERT INTO ${table(kind, tier)} (device_seq, bucket, n) VALUES (?, ?, ?)`, [seq, bucket, n])
  return { db, store, cache, get, put, table, reads: () => reads }
}

describe('the summaries’ tier rows kept between requests (metrics.summary.cache.ts)', () => {
  test('a kept answer is used until a row of its table and device is inserted, updated or deleted', () => {
    const w = world()
    for (let i = 0; i < 6; i++) w.put('hardware', '10m', 1, T0 + i * TEN)
    const first = w.get('hardware', '10m', 1, T0, T0 + 6 * TEN)
    expect(first).toHaveLength(6)
    expect(w.get('hardware', '10m', 1, T0, T0 + 6 * TEN)).toBe(first)
    expect(w.reads()).toBe(1)
    // another device's rows, another tier, the other kind: the answer stands
    w.put('hardware', '10m', 2, T0)
    w.put('hardware', '1m', 1, T0)
    w.put('network', '10m', 1, T0)
    expect(w.get('hardware', '10m', 1, T0, T0 + 6 * TEN)).toBe(first)
    expect(w.reads()).toBe(1)
    const fresh = () => w.store.tierValues('hardware', '10m', 1, T0, T0 + 6 * TEN)
    const writes = [
      `UPDATE metric_hw_10m SET n = 5 WHERE device_seq = 1 AND bucket = ${T0}`,
      `DELETE FROM metric_hw_10m WHERE device_seq = 1 AND bucket = ${T0 + TEN}`,
      `INSERT OR REPLACE INTO metric_hw_10m (device_seq, bucket, n) VALUES (1, ${T0 + TEN}, 9)`,
    ]
    for (const [i, sql] of writes.entries()) {
      w.db.sqlite.run(sql)
      expect(w.get('hardware', '10m', 1, T0, T0 + 6 * TEN)).toEqual(fresh())
      expect(w.reads()).toBe(2 + i)
    }
  })

  test('inside a transaction nothing is kept or used, and a rolled-back write leaves the kept answer right', () => {
    const w = world()
    for (let i = 0; i < 3; i++) w.put('network', '1h', 4, T0 + i * 3_600_000)
    const kept = w.get('network', '1h', 4, T0, T0 + 3 * 3_600_000)
    expect(() =>
      w.db.sqlite.transaction(() => {
        w.put('network', '1h', 4, T0 + 3 * 3_600_000 - 1)
        // read inside: afresh, the transaction's own row included
        expect(w.get('network', '1h', 4, T0, T0 + 3 * 3_600_000)).toHaveLength(4)
        throw new Error('rolled back')
      })(),
    ).toThrow('rolled back')
    expect(w.reads()).toBe(2)
    expect(w.get('network', '1h', 4, T0, T0 + 3 * 3_600_000)).toBe(kept)
    // a write after the rollback counts as the rolled-back one did: what was read inside the
    // transaction must not be taken for it
    w.put('network', '1h', 4, T0 + 3 * 3_600_000 - 2, 7)
    expect(w.get('network', '1h', 4, T0, T0 + 3 * 3_600_000)).toEqual(w.store.tierValues('network', '1h', 4, T0, T0 + 3 * 3_600_000))
  })

  test('a first read inside a transaction that rolls back leaves the counting in place for the reads after it', () => {
    const w = world()
    w.put('hardware', '1h', 5, T0)
    expect(() =>
      w.db.sqlite.transaction(() => {
        w.get('hardware', '1h', 5, T0, T0 + 7_200_000)
        throw new Error('rolled back')
      })(),
    ).toThrow('rolled back')
    const kept = w.get('hardware', '1h', 5, T0, T0 + 7_200_000)
    w.put('hardware', '1h', 5, T0 + 3_600_000)
    expect(w.get('hardware', '1h', 5, T0, T0 + 7_200_000)).not.toBe(kept)
    expect(w.get('hardware', '1h', 5, T0, T0 + 7_200_000)).toHaveLength(2)
  })

  test('holds at most its bound of rows, dropping the answer used longest ago first', () => {
    const w = world(8)
    for (const seq of [1, 2, 3]) for (let i = 0; i < 3; i++) w.put('hardware', '1h', seq, T0 + i * 3_600_000)
    const ask = (seq: number) => w.get('hardware', '1h', seq, T0, T0 + 3 * 3_600_000)
    ask(1)
    ask(2)
    ask(1) // device 1 used last: device 2's answer goes first
    ask(3)
    expect(w.cache.rows()).toBeLessThanOrEqual(8)
    const before = w.reads()
    ask(1)
    ask(3)
    expect(w.reads()).toBe(before)
    ask(2)
    expect(w.reads()).toBe(before + 1)
    // an answer larger than the bound is answered, not kept
    for (let i = 0; i < 9; i++) w.put('hardware', '1m', 9, T0 + i * 60_000)
    w.get('hardware', '1m', 9, T0, T0 + 9 * 60_000)
    w.get('hardware', '1m', 9, T0, T0 + 9 * 60_000)
    expect(w.reads()).toBe(before + 3)
    expect(w.cache.rows()).toBeLessThanOrEqual(8)
  })

  test('the tiers as the reads see them add the unrolled tail to a copy, never to the shared rows', () => {
    const w = world()
    for (let i = 0; i < 3; i++) w.put('hardware', '10m', 1, T0 + i * TEN)
    for (let i = 0; i < 10; i++) w.put('hardware', '1m', 1, T0 + 3 * TEN + i * 60_000)
    const done = Object.fromEntries(TIERS.map((t) => [t.name, T0])) as Record<TierName, number>
    done['10m'] = T0 + 3 * TEN
    done['1m'] = T0 + 4 * TEN
    const due = { ...done, '10m': T0 + 4 * TEN }
    const kept = Object.freeze(w.get('hardware', '10m', 1, T0, T0 + 3 * TEN)) as TierValues[]
    // the reads answer the kept (frozen) rows: adding to them in place would throw
    const reads = {
      ...w.store,
      tierValues: (k: MetricKind, t: TierName, s: number, a: number, b: number) => (t === '10m' ? kept : w.store.tierValues(k, t, s, a, b)),
    }
    const rows = stepsNow(tierRowsDue('hardware', 2, 1, T0, T0 + 4 * TEN, done, due), reads as typeof w.store)
    expect(rows).toHaveLength(4)
    expect(kept).toHaveLength(3)
    expect(
      stepsNow(
        read((s) => s.tierValues('hardware', '10m', 1, T0, T0 + 3 * TEN)),
        reads as typeof w.store,
      ),
    ).toBe(kept)
  })
})

describe('a history page’s hourly counts kept between requests (metrics.summary.cache.ts)', () => {
  const HOUR = 3_600_000
  test('the count is kept until a row of the hourly tier of its device and kind is written, and reads through the reads as the store counts', async () => {
    const w = world()
    for (let i = 0; i < 5; i++) w.put('hardware', '1h', 3, T0 + i * HOUR, 360)
    let reads = 0
    const count = () =>
      w.cache.hourlyCount('hardware', 3, T0, T0 + 5 * HOUR, () => {
        reads++
        return w.store.hourlyCount('hardware', 3, T0, T0 + 5 * HOUR)
      })
    expect(count()).toBe(1800)
    expect(count()).toBe(1800)
    expect(reads).toBe(1)
    // another device's hour, a finer tier of this device, the other kind: the count stands
    w.put('hardware', '1h', 4, T0, 360)
    w.put('hardware', '10m', 3, T0, 60)
    w.put('network', '1h', 3, T0, 360)
    expect(count()).toBe(1800)
    expect(reads).toBe(1)
    // an hour rolled again, pruned, rolled anew: each read afresh
    const writes = [
      `UPDATE metric_hw_1h SET n = 100 WHERE device_seq = 3 AND bucket = ${T0}`,
      `DELETE FROM metric_hw_1h WHERE device_seq = 3 AND bucket = ${T0 + HOUR}`,
      `INSERT INTO metric_hw_1h (device_seq, bucket, n) VALUES (3, ${T0 + HOUR}, 7)`,
    ]
    for (const [i, sql] of writes.entries()) {
      w.db.sqlite.run(sql)
      expect(count()).toBe(w.store.hourlyCount('hardware', 3, T0, T0 + 5 * HOUR))
      expect(reads).toBe(2 + i)
    }
    expect(count()).toBe(100 + 7 + 3 * 360)
    // inside a transaction: read afresh, nothing kept
    w.db.sqlite.transaction(() => {
      w.put('hardware', '1h', 3, T0 + 4 * HOUR + 1, 1)
      expect(count()).toBe(100 + 7 + 3 * 360 + 1)
    })()
    expect(reads).toBe(5)
    expect(count()).toBe(100 + 7 + 3 * 360 + 1)
    expect(reads).toBe(6)
    // and the SQLite reads the history's total goes through take the kept count
    const counted = () => {
      reads++
      return w.store.hourlyCount('hardware', 3, T0, T0 + 5 * HOUR)
    }
    const through = sqliteMetricsReads({ ...w.store, hourlyCount: counted }, w.cache)
    expect(await through.hourlyCount('hardware', 3, T0, T0 + 5 * HOUR)).toBe(100 + 7 + 3 * 360 + 1)
    expect(reads).toBe(6)
  })
})
