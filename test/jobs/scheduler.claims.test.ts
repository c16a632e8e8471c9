import { describe, expect, test } from 'bun:test'
import type { JobClaims } from '../../src/jobs/claims'
import { startScheduler } from '../../src/jobs/scheduler'
import { createLogger } from '../../src/lib/logger'
import { manualTimers } from '../helpers/timers'

/**
 * The scheduler's side of the claims port, with a claims port in memory that two schedulers
 * share: what it is asked (the slot is croner's time, not the clock's), what it says no to, and
 * the lease a run holds. The PostgreSQL port itself: scheduler.hubs.test.ts.
 */
function memoryClaims() {
  const asked: string[] = []
  const owner = new Map<string, string>()
  const port = (hub: string): JobClaims => ({
    async claim(job, slot) {
      asked.push(`${hub} ${job} ${new Date(slot).toISOString().slice(11, 23)}`)
      const key = `${job}@${slot}`
      if (owner.has(key)) return false
      owner.set(key, hub)
      return true
    },
    renewEveryMs: 20_000,
    async renew(job, slot) {
      asked.push(`${hub} renews ${job} ${new Date(slot).toISOString().slice(11, 19)}`)
    },
    async finish(job, slot) {
      asked.push(`${hub} finishes ${job} ${new Date(slot).toISOString().slice(11, 19)}`)
    },
  })
  return { asked, port }
}

const quiet = () => createLogger({ level: 'error', format: 'json', write: () => {} })

describe('the scheduler asks the claims port', () => {
  test('for each slot by croner’s time; the hub told no does not run it, the other runs it once', async () => {
    const claims = memoryClaims()
    let t = Date.parse('2026-11-27T12:00:00.500Z')
    const ran: string[] = []
    const hub = (name: string, skew: number) => {
      const timers = manualTimers()
      const s = startScheduler(
        [{ name: 'test.job', cron: '* * * * * *', run: () => void ran.push(name) }],
        quiet(),
        { now: () => t + skew, timers: timers.timers },
        claims.port(name),
      )
      return { s, timers }
    }
    const [a, b] = [hub('a', 130), hub('b', -40)]
    for (let i = 0; i < 4; i++) {
      t += 500
      a.timers.fire()
      b.timers.fire()
      await Promise.all([a.s.settled(), b.s.settled()])
    }
    await Promise.all([a.s.stop(), b.s.stop()])
    expect(claims.asked.filter((l) => !l.includes('finishes'))).toEqual([
      'a test.job 12:00:01.000',
      'b test.job 12:00:01.000',
      'a test.job 12:00:02.000',
      'b test.job 12:00:02.000',
    ])
    expect(ran).toEqual(['a', 'a'])
    expect(claims.asked.filter((l) => l.includes('finishes'))).toEqual(['a finishes test.job 12:00:01', 'a finishes test.job 12:00:02'])
  })

  test('a claimed run renews its lease while it goes on; an every-hub job and an operator’s run are never asked about', async () => {
    const claims = memoryClaims()
    let t = Date.parse('2026-11-27T12:00:00.500Z')
    const timers = manualTimers()
    let finish = () => {}
    const s = startScheduler(
      [
        { name: 'test.long', cron: '* * * * * *', run: () => new Promise<void>((r) => (finish = r)) },
        { name: 'test.here', cron: '* * * * * *', everyHub: true, run: () => {} },
        { name: 'test.hand', cron: '0 0 0 1 1 *', run: () => {} },
      ],
      quiet(),
      { now: () => t, timers: timers.timers },
      claims.port('a'),
    )
    await s.trigger('test.hand')
    for (let i = 0; i < 3; i++) {
      t += 1000
      timers.fire() // the manual timers fire the renewal each time: in real time, every 20 s
      await s.settled()
    }
    finish()
    await s.stop()
    expect(claims.asked).toEqual(['a test.long 12:00:01.000', 'a renews test.long 12:00:01', 'a renews test.long 12:00:01', 'a finishes test.long 12:00:01'])
    expect(timers.pending()).toBe(0)
  })

  test('a claim that fails is a no, logged with the job’s name', async () => {
    const lines: string[] = []
    let t = Date.parse('2026-11-27T12:00:00.500Z')
    const timers = manualTimers()
    let ran = 0
    const failing: JobClaims = {
      claim: () => Promise.reject(new Error('connection refused')),
      renewEveryMs: null,
      renew: async () => {},
      finish: async () => {},
    }
    const logger = createLogger({ level: 'warn', format: 'json', write: (l) => void lines.push(l) })
    const s = startScheduler([{ name: 'test.job', cron: '* * * * * *', run: () => void ran++ }], logger, { now: () => t, timers: timers.timers }, failing)
    t += 1000
    timers.fire()
    await s.settled()
    await s.stop()
    expect(ran).toBe(0)
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'job not run: its claim failed', job: 'test.job', error: 'connection refused' })
  })
})
