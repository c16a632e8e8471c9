import { Cron } from 'croner'
import type { Logger } from '../lib/logger'
import { systemTimers, type Timers } from '../lib/timers'

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

/** `time`: the wall clock and the timers the schedules wait on (tests pass manual ones). */
export function startScheduler(jobs: Job[], logger: Logger, time: WallTime = { now: Date.now, timers: systemTimers }): Scheduler {
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
  // a run still going when the next one is due is not started twice (croner's `protect`)
  const busy = new Set<Job>()
  const scheduled = async (job: Job) => {
    if (busy.has(job)) return
    busy.add(job)
    try {
      await runJob(job)
    } finally {
      busy.delete(job)
    }
  }
  const crons = jobs.map((job) => every(job.cron, () => void scheduled(job), time))
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

export interface WallTime {
  now: () => number
  timers: Timers
}

/** Never waits longer than this before looking at the clock again (croner's rule): a clock set back or a suspend is noticed. */
const MAX_WAIT_MS = 30_000

/**
 * The first time after `afterMs` that a cron pattern names, read by croner in UTC. The instance is
 * made for the question and dropped: a kept croner instance holds a 10,000-entry table of years,
 * and the hub's sixteen jobs kept about 1.5 MB of an idle hub's memory that way.
 */
export function nextRunAfter(pattern: string, afterMs: number): number | null {
  return new Cron(pattern, { ...IN_UTC, paused: true }).nextRun(new Date(afterMs))?.getTime() ?? null
}

/**
 * Calls `due` at each time the pattern names, by the wall clock `now`; a time missed (a suspend,
 * a busy loop) is not caught up. The timers never keep the process alive: the server does.
 */
export function every(pattern: string, due: () => void, time: WallTime): { stop(): void } {
  let last = time.now()
  let target = nextRunAfter(pattern, last)
  let stopped = false
  let cancel = () => {}
  const arm = () => {
    if (target !== null) cancel = time.timers.after(Math.min(Math.max(target - time.now(), 0), MAX_WAIT_MS), check)
  }
  function check() {
    if (stopped || target === null) return
    const now = time.now()
    const fired = now >= target
    if (fired) due()
    // asked again after a run, or from the clock as it is now when it was set back
    if (fired || now < last) target = nextRunAfter(pattern, now)
    last = now
    arm()
  }
  arm()
  return {
    stop() {
      stopped = true
      cancel()
    },
  }
}
