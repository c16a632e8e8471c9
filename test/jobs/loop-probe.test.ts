import { describe, expect, test } from 'bun:test'
import { loopProbe } from '../../src/jobs/loop-probe'
import { startScheduler } from '../../src/jobs/scheduler'
import { createLogger } from '../../src/lib/logger'
import { manualTimers } from '../helpers/timers'

/** A clock the test moves: a job "holds the loop" by moving it between two timer turns. */
function fakeNow() {
  let t = 1_000
  return { now: () => t, pass: (ms: number) => void (t += ms) }
}

describe('the loop probe', () => {
  test('answers the longest stretch between its timer turns, not the whole watch', () => {
    const clock = fakeNow()
    const m = manualTimers()
    const stop = loopProbe(m.timers, clock.now).watch()
    for (const held of [3, 40, 7]) {
      clock.pass(1 + held) // the timer's own period, then the stretch that made it late
      m.fire()
    }
    clock.pass(2)
    expect(stop()).toBe(40)
    // stopped: no timer left behind
    expect(m.pending()).toBe(0)
  })

  test('counts the stretch that ends the watch whole', () => {
    const clock = fakeNow()
    const m = manualTimers()
    const stop = loopProbe(m.timers, clock.now).watch()
    clock.pass(1)
    m.fire()
    clock.pass(25)
    expect(stop()).toBe(25)
  })
})

describe('a job run with the probe', () => {
  const jobs = (clock: ReturnType<typeof fakeNow>, m: ReturnType<typeof manualTimers>) => [
    {
      name: 'metrics.steps',
      cron: '0 0 * * * *',
      run: async () => {
        clock.pass(12) // a synchronous step
        await new Promise<void>((r) => setImmediate(r))
        clock.pass(1)
        m.fire() // the loop turned: the probe saw the first step end
        clock.pass(30) // a longer step
      },
    },
    {
      name: 'metrics.broken',
      cron: '0 0 * * * *',
      run: () => {
        clock.pass(9)
        throw new Error('boom')
      },
    },
  ]

  test('logs the longest hold beside the run time, and stops watching when it ends or fails', async () => {
    const clock = fakeNow()
    const m = manualTimers()
    const lines: string[] = []
    const logger = createLogger({ level: 'debug', format: 'json', write: (l) => void lines.push(l) })
    const scheduler = startScheduler(jobs(clock, m), logger, { now: () => 0, timers: manualTimers().timers }, undefined, loopProbe(m.timers, clock.now))
    await scheduler.trigger('metrics.steps')
    const done = JSON.parse(lines.find((l) => l.includes('job done'))!)
    expect(done).toMatchObject({ job: 'metrics.steps', heldMs: 30 })
    expect(m.pending()).toBe(0)
    await scheduler.trigger('metrics.broken')
    expect(lines.find((l) => l.includes('job failed'))).toContain('boom')
    expect(m.pending()).toBe(0)
    await scheduler.stop()
  })

  test('without it the run is logged as before', async () => {
    const clock = fakeNow()
    const m = manualTimers()
    const lines: string[] = []
    const logger = createLogger({ level: 'debug', format: 'json', write: (l) => void lines.push(l) })
    const scheduler = startScheduler(jobs(clock, m), logger, { now: () => 0, timers: manualTimers().timers })
    await scheduler.trigger('metrics.steps')
    expect(JSON.parse(lines.find((l) => l.includes('job done'))!)).not.toHaveProperty('heldMs')
    await scheduler.stop()
  })
})
