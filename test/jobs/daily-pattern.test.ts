import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { Cron, scheduledJobs } from 'croner'
import { dailyPattern } from '../../src/jobs/daily-pattern'
import { every, IN_UTC, startScheduler } from '../../src/jobs/scheduler'
import { createLogger } from '../../src/lib/logger'
import { testApp } from '../helpers/app'
import { manualTimers } from '../helpers/timers'

const croner = (pattern: string, after: number) => new Cron(pattern, { ...IN_UTC, paused: true }).nextRun(new Date(after))!.getTime()

/** A second, minute or hour field of the simple shape: `*`, `*\/N` or a list of numbers. */
const field = (size: number) =>
  fc.oneof(
    fc.constant('*'),
    fc.integer({ min: 1, max: size - 1 }).map((n) => `*/${n}`),
    fc.uniqueArray(fc.integer({ min: 0, max: size - 1 }), { minLength: 1, maxLength: 4 }).map((xs) => xs.join(',')),
  )
const simplePattern = fc.tuple(field(60), field(60), field(24)).map(([s, m, h]) => `${s} ${m} ${h} * * *`)
// 2001 to 2099, to the millisecond
const instant = fc.integer({ min: Date.UTC(2001, 0, 1), max: Date.UTC(2099, 11, 31) })

describe('the hub’s job schedules without croner', () => {
  test('every schedule of the job list is of the simple shape', () => {
    const { jobs } = testApp()
    expect(jobs.filter((j) => !dailyPattern(j.cron)).map((j) => j.cron)).toEqual([])
  })

  test('the next time is croner’s, for the job list’s schedules and for any pattern of that shape', () => {
    const { jobs } = testApp()
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...jobs.map((j) => j.cron)), simplePattern), instant, (pattern, after) => {
        expect(dailyPattern(pattern)!.next(after)).toBe(croner(pattern, after))
      }),
      { numRuns: 2000 },
    )
  })

  test('any other pattern is left to croner', () => {
    for (const p of [
      '0 0 0 1 * *',
      '0 0 3 * * MON',
      '0 0 3 * 1 *',
      '0 30 2 * *',
      '@daily',
      '0 */60 * * * *',
      '0 0-5 * * * *',
      '61 * * * * *',
      '0 0 24 * * *',
      '0 0 3 L * *',
    ])
      expect(dailyPattern(p)).toBeNull()
  })

  test('the job list makes no croner instance; a schedule of another shape still runs on croner', async () => {
    const logger = createLogger({ level: 'error', format: 'json', write: () => {} })
    const before = scheduledJobs.length
    const hub = startScheduler(testApp().jobs, logger)
    expect(scheduledJobs.length).toBe(before)
    const weekly = startScheduler([{ name: 'backups.scheduled', cron: '0 30 2 * * SUN', run: () => {} }], logger)
    expect(scheduledJobs.map((c) => c.name)).toContain('backups.scheduled')
    await hub.stop()
    await weekly.stop()
    expect(scheduledJobs.length).toBe(before)
  })
})

describe('a simple schedule runs by the wall clock', () => {
  test('at each time it names, not between, and from the clock as it is after it was set back', () => {
    let now = Date.parse('2026-11-27T12:00:00.500Z')
    const clock = manualTimers()
    let runs = 0
    const timer = every(dailyPattern('*/15 * * * * *')!, () => runs++, { now: () => now, timers: clock.timers })
    now = Date.parse('2026-11-27T12:00:15.000Z')
    clock.fire()
    expect(runs).toBe(1)
    now = Date.parse('2026-11-27T12:00:20.000Z') // woken early (the timer waits at most 30 s)
    clock.fire()
    expect(runs).toBe(1)
    now = Date.parse('2026-11-27T12:00:30.004Z')
    clock.fire()
    expect(runs).toBe(2)
    now = Date.parse('2026-11-27T11:00:01.000Z') // the clock set back an hour: nothing runs until 11:00:15
    clock.fire()
    expect(runs).toBe(2)
    now = Date.parse('2026-11-27T11:00:15.000Z')
    clock.fire()
    expect(runs).toBe(3)
    timer.stop()
    expect(clock.pending()).toBe(0)
  })

  test('a job still running when it is due again is not started twice', async () => {
    const logger = createLogger({ level: 'error', format: 'json', write: () => {} })
    let now = Date.parse('2026-11-27T12:00:00.500Z')
    const clock = manualTimers()
    let started = 0
    let finish = () => {}
    const run = () =>
      new Promise<void>((resolve) => {
        started += 1
        finish = resolve
      })
    const scheduler = startScheduler([{ name: 'slow', cron: '* * * * * *', run }], logger, { now: () => now, timers: clock.timers })
    const tick = async () => {
      now += 1000
      clock.fire()
      await Promise.resolve()
    }
    await tick()
    expect(started).toBe(1)
    await tick() // due again while the first run goes on
    expect(started).toBe(1)
    finish()
    await new Promise<void>((resolve) => setImmediate(resolve))
    await tick()
    expect(started).toBe(2)
    finish()
    await scheduler.stop()
  })
})
