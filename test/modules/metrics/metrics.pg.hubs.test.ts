import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { openPostgres } from '../../../src/db/pg/connection'
import { migratePostgres } from '../../../src/db/pg/migrate'
import { DAYS_AHEAD, DAYS_BEHIND, dayOf, dropMetricDaysBefore, ensureMetricTables, partitionDays } from '../../../src/db/pg/metrics.partitions'
import { manualClock } from '../../../src/lib/clock'
import type { Timers } from '../../../src/lib/timers'
import { batchRows } from '../../../src/modules/metrics/metrics.service'
import { createMetricsStorePg } from '../../../src/modules/metrics/metrics.store.pg'
import { createMetricWriterPg } from '../../../src/modules/metrics/metrics.writer.pg'
import { createRecordCodec } from '../../../src/modules/metrics/metrics.records.pg'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'
import real from '../../fixtures/agent-sample.json'

/**
 * Metrics on PostgreSQL with several hubs on one database: day partitions made ahead and dropped
 * whole by retention, and two hubs' writers racing for the same samples.
 */
const pg = postgresForTests()
const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 20, 12)
const soon: Timers = {
  after(_ms, fn) {
    let on = true
    setImmediate(() => on && fn())
    return () => {
      on = false
    }
  },
}

describe('metrics on PostgreSQL, several hubs', () => {
  let fresh: FreshDatabase | undefined
  let sql: SQL
  let other: SQL
  beforeAll(async () => {
    if (!pg.url) return
    fresh = await pg.freshDatabase('vigil_metrics')
    sql = openPostgres({ url: fresh.url, pool: 4 })
    other = openPostgres({ url: fresh.url, pool: 4 })
    await migratePostgres(sql, 1)
    await sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'c1', 1, 1)`
    await sql`INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, seq) VALUES ('d1', 'c1', 'd1', 1, 1, 1)`
  }, 60_000)
  afterAll(async () => {
    await sql?.close()
    await other?.close()
    await fresh?.drop()
  }, 60_000)

  test.skipIf(!pg.url)(`partitions are made ahead once however many hubs ask, and retention drops whole days only ${pg.skipReason}`, async () => {
    const made = await Promise.all([ensureMetricTables(sql, T0), ensureMetricTables(other, T0)])
    expect(made[0]!.length + made[1]!.length).toBe(DAYS_AHEAD + DAYS_BEHIND + 1)
    const days = await partitionDays(sql)
    expect(days[0]).toBe(dayOf(T0) - DAYS_BEHIND * DAY)
    expect(days.at(-1)).toBe(dayOf(T0) + DAYS_AHEAD * DAY)
    // two hubs' writers, one on each connection pool
    const clock = manualClock(T0)
    const hub1 = createMetricWriterPg(sql, clock, { rawRetentionMs: 30 * DAY }, soon)
    const old = (days: number) => batchRows({ ...real, recorded_at: new Date(T0 - days * DAY).toISOString() }, T0)
    await hub1.submit({ deviceSeq: 1, samples: old(2) })
    await hub1.submit({ deviceSeq: 1, samples: old(1) })
    // a replay older than the partitions made ahead makes its own day
    await hub1.submit({ deviceSeq: 1, samples: old(DAYS_BEHIND + 3) })
    expect(await partitionDays(sql)).toContain(dayOf(T0 - (DAYS_BEHIND + 3) * DAY))
    // older than raw retention: refused, nothing made
    await expect(hub1.submit({ deviceSeq: 1, samples: old(31) })).rejects.toMatchObject({ code: 'invalid_parameter' })
    const reads = createMetricsStorePg(other)
    expect(await reads.count('hardware', 1, 0, T0)).toBe(3)
    // cutoff in the middle of yesterday: the day before and older go, yesterday's partition stays whole
    const dropped = await dropMetricDaysBefore(sql, T0 - DAY)
    expect(dropped).toContain(dayOf(T0 - 2 * DAY))
    expect(dropped).not.toContain(dayOf(T0 - DAY))
    expect(await reads.count('hardware', 1, 0, T0)).toBe(1)
    expect(await reads.oldestTs('hardware', 1)).toBe(T0 - DAY)
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM metric_record_refs WHERE day < ${dayOf(T0 - DAY)}`
    expect(n).toBe(0)
    // the remaining record still decodes (its day's reference was kept)
    expect((await reads.latest('hardware', 1))!.rest).toContain('"cpu_brand"')
  })

  test.skipIf(!pg.url)(
    `two hubs storing the same samples at once: each is stored once, both answer the same id, one as a repeat ${pg.skipReason}`,
    async () => {
      const clock = manualClock(T0)
      const hub1 = createMetricWriterPg(sql, clock, { rawRetentionMs: 30 * DAY }, soon)
      const hub2 = createMetricWriterPg(other, clock, { rawRetentionMs: 30 * DAY }, soon)
      const job = (i: number) => ({ deviceSeq: 1, samples: batchRows({ ...real, recorded_at: new Date(T0 - 3_600_000 + i * 10_000).toISOString() }, T0) })
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all([0, 1, 2, 3].flatMap((k) => [hub1.submit(job(round * 4 + k)), hub2.submit(job(round * 4 + k))]))
        for (let k = 0; k < 4; k++) {
          const a = results[2 * k]!
          const b = results[2 * k + 1]!
          expect(a.ids).toEqual(b.ids)
          // exactly one of the two stored it
          expect([a.duplicate, b.duplicate].filter((d) => d === null).length).toBe(1)
        }
      }
      const reads = createMetricsStorePg(sql)
      expect(await reads.count('network', 1, T0 - 3_600_000, T0)).toBe(20)
      // what hub 2 stored, hub 1's reads see at once (no hub-local records on PostgreSQL)
      const page = await createMetricsStorePg(other).page('hardware', 1, T0 - 3_600_000, T0, 20, 0)
      expect(page.length).toBe(20)
      expect(page.every((r) => typeof r[FIELD_REST] === 'string')).toBe(true)
    },
  )

  test.skipIf(!pg.url)(`a hub whose clock is behind another's never moves a device's last report back ${pg.skipReason}`, async () => {
    const seen = async () => Number((await sql`SELECT last_seen_at FROM devices WHERE seq = 1`)[0].last_seen_at)
    const ahead = createMetricWriterPg(sql, manualClock(T0 + 60_000), { rawRetentionMs: 30 * DAY }, soon)
    const behind = createMetricWriterPg(other, manualClock(T0), { rawRetentionMs: 30 * DAY }, soon)
    const job = (i: number) => ({ deviceSeq: 1, samples: batchRows({ ...real, recorded_at: new Date(T0 - 7_200_000 + i * 10_000).toISOString() }, T0) })
    await ahead.submit(job(0))
    expect(await seen()).toBe(T0 + 60_000)
    // the device's first sample on the other hub is written at once, with that hub's earlier time
    await behind.submit(job(1))
    expect(await seen()).toBe(T0 + 60_000)
  })
})

describe('the group commit on PostgreSQL', () => {
  let fresh: FreshDatabase | undefined
  let sql: SQL
  beforeAll(async () => {
    if (!pg.url) return
    fresh = await pg.freshDatabase('vigil_metric_groups')
    sql = openPostgres({ url: fresh.url, pool: 4 })
    await migratePostgres(sql, 1)
    await sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'c1', 1, 1)`
    await sql`INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, seq) VALUES ('d1', 'c1', 'd1', 1, 1, 1)`
  }, 60_000)
  afterAll(async () => {
    await sql?.close()
    await fresh?.drop()
  }, 60_000)

  test.skipIf(!pg.url)(`requests arriving while a group commits wait for it and go together as the next group ${pg.skipReason}`, async () => {
    // every transaction counted, and the first held open until the test lets it go
    let begins = 0
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    let held = true // not during the warm-up below
    const counted = new Proxy(sql, {
      get(target, prop) {
        if (prop === 'begin') {
          return async (fn: (tx: SQL) => Promise<unknown>) => {
            begins++
            if (!held) {
              held = true
              await gate
            }
            return target.begin(fn as never)
          }
        }
        const v = Reflect.get(target, prop, target)
        return typeof v === 'function' ? v.bind(target) : v
      },
    })
    const turn = () => new Promise<void>((r) => setImmediate(r))
    const w = createMetricWriterPg(counted, manualClock(T0), { rawRetentionMs: 30 * DAY }, soon)
    const job = (i: number) => ({ deviceSeq: 1, samples: batchRows({ ...real, recorded_at: new Date(T0 - 60_000 + i * 1000).toISOString() }, T0) })
    // the tables and the day's partition first, so that only the groups' transactions are counted below
    await w.submit(job(0))
    begins = 0
    held = false
    const first = w.submit(job(1))
    await turn()
    await turn()
    const later = [w.submit(job(2))]
    await turn()
    later.push(w.submit(job(3)))
    await turn()
    release()
    const results = await Promise.all([first, ...later])
    expect(results.every((r) => r.duplicate === null)).toBe(true)
    expect(begins).toBe(2)
  })
})

describe('reference records on PostgreSQL', () => {
  let fresh: FreshDatabase | undefined
  let sql: SQL
  beforeAll(async () => {
    if (!pg.url) return
    fresh = await pg.freshDatabase('vigil_metric_refs')
    sql = openPostgres({ url: fresh.url, pool: 2 })
    await migratePostgres(sql, 1)
    await ensureMetricTables(sql, T0)
    await sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'c1', 1, 1)`
    await sql`INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, seq) VALUES ('d1', 'c1', 'd1', 1, 1, 1)`
  }, 60_000)
  afterAll(async () => {
    await sql?.close()
    await fresh?.drop()
  }, 60_000)

  test.skipIf(!pg.url)(
    `a reference made in a transaction that rolled back is not kept: the hub codes against the one another hub committed ${pg.skipReason}`,
    async () => {
      const part = (text: string) => [{ kind: 'hardware' as const, values: [], rest: JSON.stringify({ note: text, pad: 'x'.repeat(200) }) }]
      const day = dayOf(T0)
      const hub1 = createRecordCodec()
      await sql
        .begin(async (tx) => {
          await hub1.scope().refsFor(tx, [{ seq: 1, day, parts: part('first, rolled back') }])
          throw new Error('rolled back')
        })
        .catch(() => {})
      const hub2 = createRecordCodec().scope()
      await sql.begin((tx) => hub2.refsFor(tx, [{ seq: 1, day, parts: part('second, committed') }]))
      hub2.commit()
      const mine = hub1.scope()
      await sql.begin((tx) => mine.refsFor(tx, [{ seq: 1, day, parts: part('third') }]))
      mine.commit()
      const rec = mine.encode(1, T0, part('third'))
      // a third hub reads the day's reference from the table and decodes the record
      const reader = createRecordCodec()
      await reader.refsOf(sql, [{ seq: 1, ts: T0 }])
      expect(reader.decode(1, T0, rec)).toEqual({ hardware: part('third')[0]!.rest })
    },
  )
})

/** where a page row's text sits: id, ts, 15 hot values, rest */
const FIELD_REST = 17
