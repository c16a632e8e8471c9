import type { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../../src/db/connection'
import { manualClock } from '../../../src/lib/clock'
import { toSampleRow } from '../../../src/modules/metrics/metrics.rows'
import { readRecords } from '../../../src/modules/metrics/metrics.hot.records'
import { createMetricWriter } from '../../../src/modules/metrics/metrics.writer'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample } from '../../helpers/samples'

/** The database with every statement's runs counted: the writer's cost per request, without timing anything. */
function counted(sqlite: Database) {
  const counts = { statements: 0, bySql: new Map<string, number>() }
  const proxy = new Proxy(sqlite, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target)
      if (prop !== 'prepare') return typeof v === 'function' ? v.bind(target) : v
      return (sql: string) => {
        const st = target.prepare(sql)
        return new Proxy(st, {
          get(s, p) {
            const f = Reflect.get(s, p, s)
            if (typeof f !== 'function') return f
            return (...args: unknown[]) => {
              counts.statements++
              counts.bySql.set(sql, (counts.bySql.get(sql) ?? 0) + 1)
              return f.apply(s, args)
            }
          },
        })
      }
    },
  })
  return { sqlite: proxy as Database, counts }
}

async function setup() {
  const t = testApp()
  const a = await tenantWithDevices(t)
  const seq = t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(a.deviceId)!.seq
  const clock = manualClock(Date.UTC(2026, 0, 1))
  const { sqlite, counts } = counted(t.db.sqlite)
  const writer = createMetricWriter(sqlite, clock, { markSeen() {} })
  const post = (i: number) => writer.submit({ deviceSeq: seq, samples: [toSampleRow('hardware', hardwareSample(i), clock.now(), false)] })
  const sendAt = (i: number, ts: number) => writer.submit({ deviceSeq: seq, samples: [toSampleRow('hardware', hardwareSample(i), ts, true)] })
  const times = () =>
    t.db.sqlite
      .query<{ ts: number }, []>('SELECT ts FROM metric_samples ORDER BY ts')
      .all()
      .map((r) => r.ts)
  return { t, clock, counts, post, sendAt, times }
}

describe('samples the hub stamps itself, many in one millisecond', () => {
  test('each request costs the same number of statements however many came before it in that millisecond', async () => {
    const { counts, post } = await setup()
    const cost: number[] = []
    for (let i = 0; i < 300; i++) {
      const before = counts.statements
      await post(i)
      cost.push(counts.statements - before)
    }
    // the first request of the burst and the last cost the same; walking a millisecond at a time, the last cost ~300 lookups
    expect(Math.max(...cost.slice(1))).toBe(cost[1]!)
  })

  test('every one is kept at its own time, and the times go back to the clock once it passes them', async () => {
    const { clock, post, times } = await setup()
    const start = clock.now()
    for (let i = 0; i < 50; i++) await post(i)
    expect(times()).toEqual(Array.from({ length: 50 }, (_, i) => start + i))
    clock.advance(1_000)
    await post(50)
    expect(times().at(-1)).toBe(start + 1_000)
  })

  test('a millisecond already held by a sample with its own recorded_at is skipped in one step', async () => {
    const { clock, post, sendAt, times } = await setup()
    const start = clock.now()
    await post(0)
    // a sent time in the next millisecond: the following stamp lands after it
    await sendAt(9, start + 1)
    await post(1)
    expect(times()).toEqual([start, start + 1, start + 2])
  })
})

/** How often the writer looked a sample up by its device and time, and took a savepoint. */
const lookups = (counts: ReturnType<typeof counted>['counts']) =>
  [...counts.bySql].filter(([sql]) => /^SELECT id, kinds FROM metric_samples WHERE device_seq = \? AND ts = \?$/.test(sql)).reduce((n, [, c]) => n + c, 0)
const savepoints = (counts: ReturnType<typeof counted>['counts']) => counts.bySql.get('SAVEPOINT req') ?? 0

describe('what a request costs the writer', () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })
  async function world() {
    // on a file: the records a group writes are read back from their segment
    const dir = mkdtempSync(join(tmpdir(), 'vigil-writer-'))
    dirs.push(dir)
    const t = testApp({ db: openDatabase(join(dir, 'vigil.db')) })
    const a = await tenantWithDevices(t)
    const seq = t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(a.deviceId)!.seq
    const clock = manualClock(Date.UTC(2026, 0, 1))
    const { sqlite, counts } = counted(t.db.sqlite)
    const writer = () => createMetricWriter(sqlite, clock, { markSeen() {} })
    const sent = (i: number, ts: number) => ({ deviceSeq: seq, samples: [toSampleRow('hardware', hardwareSample(i), ts, true)] })
    return { t, seq, clock, sqlite, counts, writer, sent }
  }

  test('a sample newer than every stored one of its device is not looked up; a repeat, a late sample and a repeat after a restart still are', async () => {
    const { clock, counts, writer, sent } = await world()
    const w = writer()
    const t0 = clock.now()
    const looked: number[] = []
    const post = async (wr: ReturnType<typeof writer>, i: number, ts: number) => {
      const before = lookups(counts)
      const r = await wr.submit(sent(i, ts))
      looked.push(lookups(counts) - before)
      return r.duplicate
    }
    expect(await post(w, 0, t0)).toBeNull()
    expect(await post(w, 1, t0 + 10_000)).toBeNull()
    expect(await post(w, 2, t0 + 20_000)).toBeNull()
    // the same sample again (a retry), and one sent late, between two stored ones
    expect(await post(w, 1, t0 + 10_000)).toEqual([true])
    expect(await post(w, 3, t0 + 5_000)).toBeNull()
    // a restart: the newest time is read from the tables again, so a replay is recognised
    expect(await post(writer(), 2, t0 + 20_000)).toEqual([true])
    expect(looked).toEqual([0, 0, 0, 1, 1, 1])
  })

  test('in a shared group, a request of one sample takes no savepoint; one of several samples does; a failing one undoes only itself, its record included', async () => {
    const { t, seq, clock, counts, writer, sent } = await world()
    const w = writer()
    const t0 = clock.now()
    await w.submit(sent(0, t0))
    const both = await Promise.all([w.submit(sent(1, t0 + 1_000)), w.submit(sent(2, t0 + 2_000))])
    expect(both.map((r) => r.duplicate)).toEqual([null, null])
    expect(savepoints(counts)).toBe(0)
    const bulk = {
      deviceSeq: seq,
      samples: [toSampleRow('hardware', hardwareSample(3), t0 + 3_000, true), toSampleRow('hardware', hardwareSample(4), t0 + 4_000, true)],
    }
    await Promise.all([w.submit(bulk), w.submit(sent(5, t0 + 5_000))])
    expect(savepoints(counts)).toBe(1)
    // a row the writer does not know of holds the next time: that request's one statement fails, its neighbour's goes through
    t.db.sqlite.run('INSERT INTO temp.metric_hot_rows (id, device_seq, ts, kinds, segment) VALUES (999999, ?, ?, 9, 0)', [seq, t0 + 6_000])
    const [failed, stored] = await Promise.allSettled([w.submit(sent(6, t0 + 6_000)), w.submit(sent(7, t0 + 7_000))])
    expect(failed.status).toBe('rejected')
    expect(stored.status).toBe('fulfilled')
    // the failed request left no record in the segment (a start would read it back as a sample stored)
    expect(readRecords(t.db.sqlite.filename).map((r) => r.ts - t0)).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000, 7_000])
    expect(
      t.db.sqlite
        .query<{ id: number; ts: number }, []>('SELECT id, ts FROM metric_samples WHERE ts >= 0 ORDER BY ts')
        .all()
        .map((r) => r.ts - t0),
    ).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000])
  })
})

describe("the devices' last_seen_at", () => {
  test("a device's first sample writes it at once; after that every device seen is written together, once per 30 s", async () => {
    const t = testApp()
    const a = await tenantWithDevices(t, 3)
    const seqs = a.deviceIds.map((id) => t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(id)!.seq)
    const clock = manualClock(Date.UTC(2026, 0, 1))
    const seen: [number, number][] = []
    const writer = createMetricWriter(t.db.sqlite, clock, { markSeen: (seq, at) => void seen.push([seq, at]) })
    const post = (d: number) => writer.submit({ deviceSeq: seqs[d]!, samples: [toSampleRow('hardware', hardwareSample(1), clock.now(), false)] })
    const t0 = clock.now()
    await post(0)
    expect(seen).toEqual([[seqs[0]!, t0]])
    clock.advance(1_000)
    await post(1)
    await post(0)
    expect(seen).toEqual([
      [seqs[0]!, t0],
      [seqs[1]!, t0 + 1_000],
    ])
    clock.advance(10_000)
    await post(1)
    expect(seen.length).toBe(2) // within 30 s of the last sweep: nothing written
    clock.advance(20_000)
    await post(2) // its first: at once; and the sweep is due: both others, with this group's time
    const all = (xs: [number, number][]) => xs.map(([seq, at]) => `${seq}@${at}`).sort()
    expect(all(seen.slice(2))).toEqual(all(seqs.map((seq) => [seq, t0 + 31_000])))
  })
})
