import { afterEach, describe, expect, test } from 'bun:test'
import { Cron } from 'croner'
import { IN_UTC, startScheduler } from '../../src/jobs/scheduler'
import { createLogger } from '../../src/lib/logger'
import { testApp } from '../helpers/app'

const savedTz = process.env.TZ
afterEach(() => {
  process.env.TZ = savedTz
})

describe('schedules', () => {
  test('are read in UTC whatever the machine time zone', () => {
    for (const tz of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
      process.env.TZ = tz
      const next = new Cron('0 17 3 * * *', { ...IN_UTC, paused: true }).nextRun(new Date('2026-03-08T01:00:00Z'))
      expect(next?.toISOString()).toBe('2026-03-08T03:17:00.000Z')
    }
  })

  test('a running job is waited for on stop, and a failing one is logged, not thrown', async () => {
    const lines: string[] = []
    const logger = createLogger({ level: 'debug', format: 'json', write: (l) => void lines.push(l) })
    let finish!: () => void
    let finished = false
    // hourly: the schedule never fires during the test; trigger runs them as it would
    const scheduler = startScheduler(
      [
        { name: 'slow', cron: '0 0 * * * *', run: () => new Promise<void>((r) => (finish = r)).then(() => void (finished = true)) },
        {
          name: 'broken',
          cron: '0 0 * * * *',
          run: () => {
            throw new Error('boom')
          },
        },
      ],
      logger,
    )
    expect(scheduler.names()).toEqual(['slow', 'broken'])
    await scheduler.trigger('broken')
    expect(lines.find((l) => l.includes('job failed'))).toContain('boom')
    void scheduler.trigger('slow')
    let stopped = false
    const stopping = scheduler.stop().then(() => void (stopped = true))
    await Promise.resolve()
    expect([stopped, finished]).toEqual([false, false])
    finish()
    await stopping
    expect([stopped, finished]).toEqual([true, true])
  })
})

describe('the job list', () => {
  test('every job is registered once, in one list, named <domain>.<what it does>, on a six-field UTC cron', () => {
    const { jobs } = testApp()
    const names = jobs.map((j) => j.name)
    expect(new Set(names).size).toBe(names.length)
    for (const job of jobs) {
      expect(job.name).toMatch(/^[a-z]+\.[a-z-]+$/)
      expect(job.cron.split(' ')).toHaveLength(6)
    }
    expect(names.sort()).toEqual([
      'ai.hub-alive',
      'ai.recommendations',
      'alerts.evaluate',
      'billing.prune-events',
      'checks.heartbeats',
      'checks.pack',
      'checks.prune',
      'checks.rows',
      'containers.retention',
      'containers.rollup',
      'devices.status',
      'health.integrity-check',
      'metrics.retention',
      'metrics.rollup',
      'metrics.seal',
      'storage.budget',
      'storage.measure',
      'users.purge-refresh-tokens',
      'webhooks.prune-deliveries',
    ])
  })
})
