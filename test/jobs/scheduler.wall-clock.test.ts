import { describe, expect, test } from 'bun:test'
import { scheduledJobs } from 'croner'
import { every, nextRunAfter, startScheduler } from '../../src/jobs/scheduler'
import { createLogger } from '../../src/lib/logger'
import { testApp } from '../helpers/app'
import { manualTimers } from '../helpers/timers'

describe('the hub’s job schedules', () => {
  test('keep no croner instance: croner reads each pattern when the next time is asked', async () => {
    const logger = createLogger({ level: 'error', format: 'json', write: () => {} })
    const before = scheduledJobs.length
    const hub = startScheduler([...testApp().jobs, { name: 'backups.scheduled', cron: '0 30 2 * * SUN', run: () => {} }], logger)
    expect(scheduledJobs.length).toBe(before)
    await hub.stop()
  })

  test('the next time is croner’s, in UTC, for any pattern', () => {
    const at = Date.parse('2026-11-27T12:00:00.500Z')
    expect(nextRunAfter('*/15 * * * * *', at)).toBe(Date.parse('2026-11-27T12:00:15.000Z'))
    expect(nextRunAfter('0 17 3 * * *', at)).toBe(Date.parse('2026-11-28T03:17:00.000Z'))
    expect(nextRunAfter('0 30 2 * * SUN', at)).toBe(Date.parse('2026-11-29T02:30:00.000Z'))
    expect(() => nextRunAfter('61 * * * * *', at)).toThrow()
  })
})

describe('a job’s schedule runs by the wall clock', () => {
  test('at each time it names, not between, and from the clock as it is after it was set back', () => {
    let now = Date.parse('2026-11-27T12:00:00.500Z')
    const clock = manualTimers()
    let runs = 0
    const timer = every('*/15 * * * * *', () => runs++, { now: () => now, timers: clock.timers })
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
