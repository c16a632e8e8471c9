import { Cron } from 'croner'
import type { Logger } from '../lib/logger'
import { systemTimers, type Timers } from '../lib/timers'
import { type JobClaims, localJobClaims } from './claims'
import type { LoopProbe } from './loop-probe'
import { trace } from '../lib/request-trace'

/** A named recurring job. Bodies live in their domain; this file only runs them. */
export interface Job {
  name: string
  /** cron pattern (with seconds allowed), e.g. '0 * * * * *' = every minute */
  cron: string
  run(): Promise<void> | void
  /**
   * Runs on every hub instead of once across the hubs sharing a database: for work on the hub's
   * own memory or files. Unset: each scheduled run is claimed (JobClaims) and runs on one hub.
   */
  everyHub?: boolean
}

/**
 * Every schedule is read in UTC. Croner's fixed-offset mode does its date arithmetic on UTC
 * fields; its local-time and named-zone modes call the engine's time-zone code (ICU), which
 * maps more of the executable into memory, for nothing on a server.
 */
export const IN_UTC = { utcOffset: 0 } as const

export interface Scheduler {
  names(): string[]
  /** runs a job now, as its schedule would (logged, waited for by stop), without asking the other hubs */
  trigger(name: string): Promise<void>
  /** resolves when every claim, renewal and release asked of the other hubs so far is answered (runs may go on) */
  settled(): Promise<void>
  /** stop scheduling and wait for runs in progress to finish */
  stop(): Promise<void>
}

/** The system's clock and timers. */
export const systemWallTime: WallTime = { now: Date.now, timers: systemTimers }

/**
 * `time`: the wall clock and the timers the schedules wait on (tests pass manual ones).
 * `claims`: which scheduled runs are this hub's (all of them on one hub).
 * `probe`: with it, each run's log line says how long the run held the event loop at most (heldMs).
 */
export function startScheduler(jobs: Job[], logger: Logger, time: WallTime = systemWallTime, claims: JobClaims = localJobClaims, probe?: LoopProbe): Scheduler {
  const running = new Set<Promise<void>>()
  /** questions to the claims port in flight */
  const asking = new Set<Promise<unknown>>()
  const ask = <T>(answer: Promise<T>): Promise<T> => {
    asking.add(answer)
    void answer.then(
      () => asking.delete(answer),
      () => asking.delete(answer),
    )
    return answer
  }
  /** one run of a job: logged, and tracked so that stop() waits for it */
  const runJob = async (job: Job) => {
    const started = performance.now()
    const held = probe?.watch()
    const traced = trace.on ? trace.now() : 0
    const run = (async () => {
      try {
        await job.run()
        if (trace.on) trace.event(`job ${job.name}`, traced)
        const heldMs = held?.()
        logger.debug('job done', {
          job: job.name,
          ms: Math.round(performance.now() - started),
          ...(heldMs === undefined ? {} : { heldMs: Math.round(heldMs * 10) / 10 }),
        })
      } catch (err) {
        held?.()
        logger.error('job failed', { job: job.name, error: (err as Error).message })
      }
    })()
    running.add(run)
    await run
    running.delete(run)
  }

  /** a claimed run: its lease renewed while it goes on, and let go when it ends */
  const runClaimed = async (job: Job, slot: number) => {
    let cancel = () => {}
    const every = claims.renewEveryMs
    const renewLater = () => {
      if (every === null) return
      cancel = time.timers.after(every, () => {
        ask(claims.renew(job.name, slot, time.now())).catch((err: Error) => logger.warn('job lease not renewed', { job: job.name, error: err.message }))
        renewLater()
      })
    }
    renewLater()
    try {
      await runJob(job)
    } finally {
      cancel()
      // not let go: the lease runs out by itself, and the job's next run waits for that
      await ask(claims.finish(job.name, slot, time.now())).catch((err: Error) => logger.warn('job lease not let go', { job: job.name, error: err.message }))
    }
  }

  /** whether the slot's run is this hub's; a failed question is a no (logged): another hub may have it */
  const claimed = (job: Job, slot: number): boolean | Promise<boolean> => {
    if (job.everyHub) return true
    const answer = claims.claim(job.name, slot, time.now())
    if (typeof answer === 'boolean') return answer
    return ask(answer).catch((err: Error) => {
      logger.warn('job not run: its claim failed', { job: job.name, error: err.message })
      return false
    })
  }

  // a run still going when the next one is due is not started twice (croner's `protect`)
  const busy = new Set<Job>()
  /** scheduled runs from their claim to their release */
  const working = new Set<Promise<void>>()
  const scheduled = (job: Job, slot: number) => {
    if (busy.has(job)) return
    busy.add(job)
    const answer = claimed(job, slot)
    const work = (async () => {
      try {
        if (answer === true) await (job.everyHub ? runJob(job) : runClaimed(job, slot))
        else if (answer !== false && (await answer)) await runClaimed(job, slot)
      } finally {
        busy.delete(job)
      }
    })()
    working.add(work)
    void work.finally(() => working.delete(work))
  }
  const crons = jobs.map((job) => every(job.cron, (slot) => scheduled(job, slot), time))
  const settled = async () => {
    // an answer starts a run (and a run that ends asks again) a few reactions later: let them happen
    do {
      await Promise.allSettled([...asking])
      await new Promise<void>((resolve) => setImmediate(resolve))
    } while (asking.size)
  }
  return {
    names: () => jobs.map((j) => j.name),
    trigger(name) {
      const job = jobs.find((j) => j.name === name)
      if (!job) throw new Error(`no job named ${name}`)
      return runJob(job)
    },
    settled,
    async stop() {
      for (const c of crons) c.stop()
      while (working.size || running.size) await Promise.all([...working, ...running])
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
 * Calls `due` at each time the pattern names, by the wall clock `now`, with that time (the slot:
 * the same on every hub, whatever its clock); a time missed (a suspend, a busy loop) is not
 * caught up. The timers never keep the process alive: the server does.
 */
export function every(pattern: string, due: (slotMs: number) => void, time: WallTime): { stop(): void } {
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
    if (fired) due(target)
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
