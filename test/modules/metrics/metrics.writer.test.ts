import type { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { toSampleRow } from '../../../src/modules/metrics/metrics.rows'
import { createMetricWriter } from '../../../src/modules/metrics/metrics.writer'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample } from '../../helpers/samples'

/** The database with every statement's runs counted: the writer's cost per request, without timing anything. */
function counted(sqlite: Database) {
  const counts = { statements: 0 }
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
  const times = () =>
    t.db.sqlite
      .query<{ ts: number }, []>('SELECT ts FROM metric_samples ORDER BY ts')
      .all()
      .map((r) => r.ts)
  return { t, clock, counts, post, times }
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
    const { t, clock, post, times } = await setup()
    const start = clock.now()
    await post(0)
    // a sent time in the next millisecond: the following stamp lands after it
    t.db.sqlite.run('INSERT INTO main.metric_samples (id, device_seq, ts, kinds) SELECT 1000, device_seq, ?, 1 FROM metric_samples LIMIT 1', [start + 1])
    await post(1)
    expect(times()).toEqual([start, start + 1, start + 2])
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
