import { describe, expect, test } from 'bun:test'
import { openDatabase } from '../../../src/db/connection'
import { migrate } from '../../../src/db/migrate'
import { FIELDS } from '../../../src/modules/metrics/metrics.fields'
import { newestRowSql } from '../../../src/modules/metrics/metrics.hot.rows'
import { createMetricsStore } from '../../../src/modules/metrics/metrics.store'
import { createSeriesStore } from '../../../src/modules/metrics/metrics.series.store'

const T0 = Date.UTC(2026, 0, 1)

/** A migrated database with the raw table's view over main's rows and the hot mirror (the stores make it). */
function hub() {
  const db = openDatabase(':memory:')
  migrate(db.sqlite, T0)
  // rows of device seqs with no device behind them: what is read, not who owns it
  db.sqlite.run('PRAGMA foreign_keys = OFF')
  return { db, metrics: createMetricsStore(db.sqlite), series: createSeriesStore(db.sqlite) }
}

/** A row in main (sealed) or in the hot mirror, with the kinds and hot values given. */
function row(db: ReturnType<typeof hub>['db'], table: 'main' | 'hot', id: number, seq: number, ts: number, kinds: number, cpu: number, download: number) {
  const cols = 'id, device_seq, ts, kinds, cpu_percent, download_mbps'
  if (table === 'main') db.sqlite.query(`INSERT INTO main.metric_samples (${cols}) VALUES (?, ?, ?, ?, ?, ?)`).run(id, seq, ts, kinds, cpu, download)
  else db.sqlite.query(`INSERT INTO temp.metric_hot_rows (${cols}, segment) VALUES (?, ?, ?, ?, ?, ?, 0)`).run(id, seq, ts, kinds | 8, cpu, download)
}

describe("a device's newest row through the raw table's view", () => {
  test('is found by merging the two indexes, not by sorting all of the device’s rows', () => {
    const { db } = hub()
    for (const [kind, bit] of [
      ['hardware', 1],
      ['network', 2],
    ] as const) {
      const cols = FIELDS[kind].map((f) => f.name).join(', ')
      const plan = (
        db.sqlite.query(`EXPLAIN QUERY PLAN ${newestRowSql(`?1, ts, ${cols}`, `device_seq = ?1 AND (kinds & ${bit}) != 0`)}`).all(1) as { detail: string }[]
      ).map((r) => r.detail)
      expect(plan).toContain('MERGE (UNION ALL)')
      // a sort would gather every row of the device first (a second for a month of samples)
      expect(plan.filter((d) => d.includes('TEMP B-TREE'))).toEqual([])
    }
    // the shape the stores used before: the id ordered on but not selected makes SQLite sort
    const sorted = db.sqlite
      .query('EXPLAIN QUERY PLAN SELECT ts, cpu_percent FROM metric_samples WHERE device_seq = ? AND (kinds & 1) != 0 ORDER BY ts DESC, id DESC LIMIT 1')
      .all(1) as { detail: string }[]
    expect(sorted.some((r) => r.detail.includes('TEMP B-TREE'))).toBe(true)
  })

  test('the fleet and the scrape read the newest row of each kind, sealed or hot, without its id', () => {
    const { db, metrics, series } = hub()
    // device 1: older rows sealed, the newest hardware hot; its newest network part is an older sealed row
    row(db, 'main', 1, 1, T0, 3, 10, 100)
    row(db, 'main', 2, 1, T0 + 10_000, 2, 0, 200)
    row(db, 'hot', 3, 1, T0 + 20_000, 1, 30, 0)
    // device 2: only sealed rows, the newest of both kinds in one row
    row(db, 'main', 4, 2, T0, 3, 40, 400)
    row(db, 'main', 5, 2, T0 + 10_000, 3, 50, 500)
    const latest = series.fleetLatest([1, 2, 3])
    expect(latest.map((r) => r.length)).toEqual([11, 11, 11])
    expect(latest[0]!.slice(0, 3)).toEqual([1, T0 + 20_000, 30])
    expect(latest[0]!.slice(6, 8)).toEqual([T0 + 10_000, 200])
    expect(latest[1]!.slice(0, 3)).toEqual([2, T0 + 10_000, 50])
    expect(latest[1]!.slice(6, 8)).toEqual([T0 + 10_000, 500])
    expect(latest[2]).toEqual([3, null, null, null, null, null, null, null, null, null, null])

    const hw = metrics.latestOf('hardware', [1, 2, 3])
    expect(hw.map((r) => r.slice(0, 3))).toEqual([
      [1, T0 + 20_000, 30],
      [2, T0 + 10_000, 50],
    ])
    expect(hw.every((r) => r.length === 2 + FIELDS.hardware.length)).toBe(true)
    const net = metrics.latestOf('network', [1])
    expect(net[0]!.slice(0, 2)).toEqual([1, T0 + 10_000])
    expect(net[0]!.length).toBe(2 + FIELDS.network.length)
  })
})
