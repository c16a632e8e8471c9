import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { memoryLogger } from '../../../src/lib/logger'
import type { Attempt } from '../../../src/modules/checks/checks.attempt'
import { createCheckScheduler, type Scheduled } from '../../../src/modules/checks/checks.scheduler'
import type { Timers } from '../../../src/lib/timers'

/** Timers on the manual clock: `fire()` runs those whose time has come (and not the ones they schedule). */
function clockTimers(clock: { now(): number }) {
  let next = 0
  const pending = new Map<number, { at: number; fn: () => void }>()
  const timers: Timers = {
    after(ms, fn) {
      const id = next++
      pending.set(id, { at: clock.now() + ms, fn })
      return () => pending.delete(id)
    },
  }
  return {
    timers,
    fire() {
      const due = [...pending].filter(([, t]) => t.at <= clock.now())
      for (const [id] of due) pending.delete(id)
      for (const [, t] of due) t.fn()
    },
  }
}

const okAttempt: Attempt = { ts: 0, ok: true, response_ms: 5, status_code: 200, error: null, cert_expires_at: null }

function setup(checks: Scheduled[], caps = { total: 10, perAccount: 4 }, random = () => 0) {
  const clock = manualClock(Date.parse('2026-03-01T00:00:00Z'))
  const t = clockTimers(clock)
  const started: { id: string; at: number }[] = []
  const recorded: { id: string; attempt: Attempt }[] = []
  const pending = new Map<string, (a: Attempt) => void>()
  const scheduler = createCheckScheduler({
    clock,
    timers: t.timers,
    logger: memoryLogger().logger,
    caps,
    random,
    initial: () => checks,
    run: (id) => {
      started.push({ id, at: clock.now() })
      return new Promise((resolve) => pending.set(id, resolve))
    },
    record: (id, attempt) => void recorded.push({ id, attempt }),
  })
  /** lets `ms` pass in steps of the tick: the clock moves and the timers due fire */
  const pass = (ms: number) => {
    const end = clock.now() + ms
    do {
      clock.set(Math.min(end, clock.now() + 200))
      t.fire()
    } while (clock.now() < end)
  }
  const finish = async (id: string, a: Attempt = okAttempt) => {
    pending.get(id)!(a)
    pending.delete(id)
    await Promise.resolve()
    await Promise.resolve()
  }
  return { clock, t, scheduler, started, recorded, pending, pass, finish }
}

const check = (id: string, clientId = 'cli_a', intervalMs = 60_000, timeoutMs = 10_000): Scheduled => ({ id, clientId, intervalMs, timeoutMs })

describe('check scheduler', () => {
  test('each check runs on its interval, its first run spread over its first interval', async () => {
    let n = 0
    const spread = [0.1, 0.6]
    const s = setup([check('a'), check('b')], undefined, () => spread[n++]!)
    const start = s.clock.now()
    s.scheduler.start()
    expect(s.scheduler.nextAt('a')).toBe(start + 6000)
    expect(s.scheduler.nextAt('b')).toBe(start + 36_000)
    s.pass(6000)
    expect(s.started.map((x) => x.id)).toEqual(['a'])
    await s.finish('a')
    expect(s.recorded).toEqual([{ id: 'a', attempt: { ...okAttempt, ts: start + 6000 } }])
    s.pass(30_000)
    expect(s.started.map((x) => x.id)).toEqual(['a', 'b'])
    await s.finish('b')
    s.pass(30_000) // 66 s: a's second run, on its phase
    expect(s.started.at(-1)).toEqual({ id: 'a', at: start + 66_000 })
  })

  test("a check's attempts never overlap: still running when due, it waits until the attempt ends", async () => {
    const s = setup([check('a', 'cli_a', 10_000, 9000)])
    s.scheduler.start()
    s.pass(200)
    expect(s.started).toHaveLength(1)
    s.pass(9_900) // due again at 10 s; its attempt still runs (the guard is at 10.2 s)
    expect(s.started).toHaveLength(1)
    await s.finish('a')
    s.pass(200)
    expect(s.started).toHaveLength(2)
  })

  test('a hung attempt is recorded as a timeout after its deadline and its slot is freed; its late answer is dropped', async () => {
    const s = setup([check('a', 'cli_a', 60_000, 1000)])
    s.scheduler.start()
    s.pass(200)
    expect(s.scheduler.inFlight()).toBe(1)
    s.pass(1000)
    expect(s.scheduler.inFlight()).toBe(1)
    s.pass(1000) // the guard fires at timeout + 1 s
    expect(s.scheduler.inFlight()).toBe(0)
    expect(s.recorded[0]!.attempt).toMatchObject({ ok: false, error: 'timeout after 1000 ms' })
    await s.finish('a')
    expect(s.recorded).toHaveLength(1)
  })

  test("one account's slow checks hold only its own slots: another account's due checks start beside them", async () => {
    const slow = Array.from({ length: 10 }, (_, i) => check(`slow${i}`, 'cli_slow'))
    const s = setup([...slow, check('fast', 'cli_fast')], { total: 6, perAccount: 4 })
    s.scheduler.start()
    s.pass(200)
    const ids = s.started.map((x) => x.id)
    expect(ids.filter((id) => id.startsWith('slow'))).toHaveLength(4)
    expect(ids).toContain('fast')
    expect(s.scheduler.inFlight()).toBe(5)
  })

  test('accounts are served in turn when the slots run short', () => {
    const a = Array.from({ length: 5 }, (_, i) => check(`a${i}`, 'cli_a'))
    const b = Array.from({ length: 5 }, (_, i) => check(`b${i}`, 'cli_b'))
    const s = setup([...a, ...b], { total: 4, perAccount: 4 })
    s.scheduler.start()
    s.pass(200)
    const ids = s.started.map((x) => x.id[0])
    expect(ids.filter((x) => x === 'a')).toHaveLength(2)
    expect(ids.filter((x) => x === 'b')).toHaveLength(2)
  })

  test('a removed check stops; a changed one keeps its phase; an attempt of the old definition is not recorded', async () => {
    const s = setup([check('a'), check('b')])
    s.scheduler.start()
    s.pass(200)
    s.scheduler.changed('a', { ...check('a'), timeoutMs: 5000 })
    s.scheduler.changed('b', null)
    await s.finish('a')
    await s.finish('b')
    expect(s.recorded).toEqual([])
    s.pass(60_000)
    expect(s.started.map((x) => x.id)).toEqual(['a', 'b', 'a'])
  })
})

test('checks that cannot be read at start (the database is away) are read again 5 s later, then run', async () => {
  const clock = manualClock(Date.parse('2026-03-01T00:00:00Z'))
  const t = clockTimers(clock)
  let reads = 0
  const started: string[] = []
  const { logger, lines } = memoryLogger()
  const scheduler = createCheckScheduler({
    clock,
    timers: t.timers,
    logger,
    caps: { total: 4, perAccount: 4 },
    random: () => 0,
    initial: async () => {
      if (reads++ === 0) throw new Error('connection refused')
      return [check('a')]
    },
    run: async (id) => {
      started.push(id)
      return okAttempt
    },
    record: () => undefined,
  })
  await scheduler.start()
  expect(scheduler.size()).toBe(0)
  expect(JSON.stringify(lines)).toContain('hub checks not planned')
  clock.advance(4999)
  t.fire()
  expect(reads).toBe(1)
  clock.advance(1)
  t.fire()
  await Promise.resolve()
  await Promise.resolve()
  expect(reads).toBe(2)
  expect(scheduler.size()).toBe(1)
  clock.advance(200)
  t.fire()
  expect(started).toEqual(['a'])
  scheduler.stop()
})
