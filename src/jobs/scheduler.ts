import { Cron } from 'croner'
import type { Logger } from '../lib/logger'

/** A named recurring job. Bodies live in their domain; this file only runs them. */
export interface Job {
  name: string
  /** cron pattern (with seconds allowed), e.g. '0 * * * * *' = every minute */
  cron: string
  run(): Promise<void> | void
}

/**
 * Every schedule is read in UTC. Croner's fixed-offset mode does its date arithmetic on UTC
 * fields; its local-time and named-zone modes call the engine's time-zone code (ICU), which
 * maps more of the executable into memory, for nothing on a server.
 */
export const IN_UTC = { utcOffset: 0 } as const

export interface Scheduler {
  names(): string[]
  /** stop scheduling and wait for runs in progress to finish */
  stop(): Promise<void>
}

export function startScheduler(jobs: Job[], logger: Logger): Scheduler {
  const running = new Set<Promise<void>>()
  const crons = jobs.map(
    (job) =>
      new Cron(job.cron, { ...IN_UTC, name: job.name, protect: true, catch: false }, async () => {
        const started = performance.now()
        const run = (async () => {
          try {
            await job.run()
            logger.debug('job done', { job: job.name, ms: Math.round(performance.now() - started) })
          } catch (err) {
            logger.error('job failed', { job: job.name, error: (err as Error).message })
          }
        })()
        running.add(run)
        await run
        running.delete(run)
      }),
  )
  return {
    names: () => jobs.map((j) => j.name),
    async stop() {
      for (const c of crons) c.stop()
      await Promise.all(running)
    },
  }
}
