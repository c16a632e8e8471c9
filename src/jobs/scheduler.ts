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
  /** runs a job now, as its schedule would (logged, waited for by stop) */
  trigger(name: string): Promise<void>
  /** stop scheduling and wait for runs in progress to finish */
  stop(): Promise<void>
}

export function startScheduler(jobs: Job[], logger: Logger): Scheduler {
  const running = new Set<Promise<void>>()
  /** one run of a job: logged, and tracked so that stop() waits for it */
  const runJob = async (job: Job) => {
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
  }
  const crons = jobs.map((job) => new Cron(job.cron, { ...IN_UTC, name: job.name, protect: true, catch: false }, () => runJob(job)))
  return {
    names: () => jobs.map((j) => j.name),
    trigger(name) {
      const job = jobs.find((j) => j.name === name)
      if (!job) throw new Error(`no job named ${name}`)
      return runJob(job)
    },
    async stop() {
      for (const c of crons) c.stop()
      await Promise.all(running)
    },
  }
}
