import type { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import type { Timers } from '../../../src/lib/timers'
import { toSampleRow } from '../../../src/modules/metrics/metrics.rows'
import { GATHER_MS, GATHER_REQUESTS, RETURN_MS } from '../../../src/modules/metrics/metrics.gather'
import { createMetricWriter } from '../../../src/modules/metrics/metrics.writer'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample } from '../../helpers/samples'

/** The database with its COMMITs counted: how many groups the writer made. */
function commitsCounted(sqlite: Database) {
  const counts = { commits: 0 }
  const proxy = new Proxy(sqlite, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target)
      if (prop !== 'prepare') return typeof v === 'function' ? v.bind(target) : v
      return (sql: string) => {
        const st = target.prepare(sql)
        if (sql !== 'COMMIT') return st
        return new Proxy(st, {
          get(s, p) {
            const f = Reflect.get(s, p, s)
            if (p !== 'run') return typeof f === 'function' ? f.bind(s) : f
            return () => {
              counts.commits++
              return st.run()
            }
          },
        })
      }
    },
  })
  return { sqlite: proxy as Database, counts }
}

/** Timers that fire only when the test says so. */
function manualTimers() {
  const due: { ms: number; fn: () => void; cancelled: boolean }[] = []
  const timers: Timers = {
    after(ms, fn) {
      const entry = { ms, fn, cancelled: false }
      due.push(entry)
      return () => void (entry.cancelled = true)
    },
  }
  return {
    timers,
    pending: () => due.filter((d) => !d.cancelled),
    fire() {
      for (const d of due.splice(0)) if (!d.cancelled) d.fn()
    },
  }
}

/** A turn of the event loop and the promise jobs after it. */
const turn = () => new Promise<void>((r) => setImmediate(r))

async function setup(devices: number) {
  const t = testApp()
  const a = await tenantWithDevices(t, devices)
  const seqs = a.deviceIds.map((id) => t.db.sqlite.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(id)!.seq)
  const clock = manualClock(Date.UTC(2026, 0, 1))
  const { sqlite, counts } = commitsCounted(t.db.sqlite)
  const timers = manualTimers()
  const real = { ms: 0 }
  const writer = createMetricWriter(sqlite, clock, { markSeen() {} }, timers.timers, () => real.ms)
  let i = 0
  const post = (seq: number) => {
    const settled = { done: false }
    const p = writer.submit({ deviceSeq: seq, samples: [toSampleRow('hardware', hardwareSample(i++), clock.now(), false)] })
    void p.then(() => void (settled.done = true))
    return { p, settled }
  }
  return { seqs, counts, timers, post, real }
}

describe('group commits gather requests that arrive close together', () => {
  test('requests of devices not heard from lately wait for each other (up to GATHER_MS) and share one commit, answered only after it', async () => {
    const { seqs, counts, timers, post } = await setup(3)
    const all = seqs.map((s) => post(s))
    await turn()
    await turn()
    expect(counts.commits).toBe(0)
    expect(all.some((o) => o.settled.done)).toBe(false)
    expect(timers.pending().map((d) => d.ms)).toEqual([GATHER_MS])
    timers.fire()
    await Promise.all(all.map((o) => o.p))
    expect(counts.commits).toBe(1)
  })

  test('a client posting again as soon as it is answered never waits (one device, or several in turn)', async () => {
    const { seqs, counts, timers, post, real } = await setup(2)
    const first = post(seqs[0]!)
    const second = post(seqs[1]!)
    timers.fire()
    await Promise.all([first.p, second.p])
    for (let k = 0; k < 6; k++) {
      real.ms += 5
      await post(seqs[k % 2]!).p
    }
    expect(counts.commits).toBe(7)
    expect(timers.pending()).toEqual([])
  })

  test('a device heard from long enough ago waits again', async () => {
    const { seqs, counts, timers, post, real } = await setup(1)
    const first = post(seqs[0]!)
    timers.fire()
    await first.p
    real.ms += 2 * RETURN_MS + 1
    const later = post(seqs[0]!)
    await turn()
    expect(later.settled.done).toBe(false)
    timers.fire()
    await later.p
    expect(counts.commits).toBe(2)
  })

  test('GATHER_REQUESTS pending requests go at once, without the timer', async () => {
    const { seqs, counts, timers, post } = await setup(2)
    const many = Array.from({ length: GATHER_REQUESTS }, (_, k) => post(seqs[k % 2]!))
    await Promise.all(many.map((o) => o.p))
    expect(counts.commits).toBe(1)
    expect(timers.pending()).toEqual([])
  })
})
