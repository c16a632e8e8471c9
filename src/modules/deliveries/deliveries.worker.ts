import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import type { Timers } from '../../lib/timers'
import type { Job } from './deliveries.due'
import { createSlots, type SlotCaps, type Slots } from './deliveries.slots'

/**
 * How often (ms) the queue is asked which accounts have due rows, beyond the accounts the
 * worker is told of (new rows) and already knows: the question reads the index entries of every
 * due row, which with a backlog of tens of thousands costs milliseconds, too much for every tick.
 */
export const RESCAN_MS = 1000

/**
 * How a worker claims due rows on its engine: SQLite in its process (deliveries.claim.ts,
 * sqliteClaims), PostgreSQL across hubs (deliveries.due.pg.ts, pgClaims). Every job it returns
 * is already counted in the worker's slots.
 */
export interface Claims<J extends Job> {
  /** due rows for the free slots, accounts in turn, within the caps; marked sending */
  claim(now: number): Promise<J[]>
  /** new rows for `account`, to these destinations */
  told(account: string, destinations: string[]): void
  /** a retry came due, or rows wait behind the caps: whose, only the queue knows */
  rescanSoon(): void
  /** rows claimed but not sent (the worker stops): due again at once where the engine allows it */
  release(jobs: J[], now: number): Promise<void>
}

/**
 * A durable delivery queue as the core works it; each domain keeps its own table. Rows are
 * pending (due at a time), sending (claimed) or finished; what finished means is the domain's.
 */
export interface DeliveryQueue<J extends Job, R> {
  /** the engine's claim, on the worker's slots */
  claims(slots: Slots, caps: SlotCaps): Claims<J>
  /**
   * Writes an attempt's result, one store call. A delivery deleted meanwhile, or claimed by
   * another worker since, is dropped there, never an error. May return what to do after.
   */
  complete(job: J, result: R, at: number): Promise<(() => void) | undefined>
  /** when the next pending row is due; null when none is pending */
  nextDueAt(): Promise<number | null>
  /** at start: on one SQLite hub what a stopped process had claimed is pending again; on PostgreSQL the leases do that */
  releaseClaims(): Promise<void>
}

export interface WorkerDeps<J extends Job, R> {
  /** names the queue in log lines */
  name: string
  queue: DeliveryQueue<J, R>
  /** one attempt; `stop` aborts it when the service stops (then its result is not recorded) */
  send: (job: J, stop: AbortSignal) => Promise<R>
  caps: SlotCaps
  clock: Clock
  timers: Timers
  logger: Logger
}

/** the longest the worker sleeps without looking at the queue (a clock step, a missed wake, a lease run out on another hub) */
const MAX_SLEEP_MS = 60_000
/** while busy, ticks are at least this far apart (ms) */
const BATCH_MS = 2

interface Finished<J, R> {
  job: J
  result: R
  at: number
}

/**
 * Works a durable delivery queue. A tick (at once when rows are written, after an attempt ends,
 * or by a timer at the next due retry) records the attempts finished since the last one and
 * claims due rows. Claims go round the accounts in turn, one row each per round, within the
 * caps (SlotCaps): no account and no destination can take every slot, and no attempt waits for
 * another to finish. Delivery is at least once: what a killed process had claimed goes out
 * again (on SQLite at the next start, on PostgreSQL from any hub once its lease is over).
 */
export function createDeliveryWorker<J extends Job, R>(deps: WorkerDeps<J, R>) {
  const slots = createSlots(deps.caps)
  const claims = deps.queue.claims(slots, deps.caps)
  let running = false
  let scheduled = false
  /** a step is under way (steps never overlap); `again`: one more is wanted after it */
  let stepping: Promise<void> | null = null
  let again = false
  let lastTick = Number.NEGATIVE_INFINITY
  const active = new Set<Promise<void>>()
  const finished: Finished<J, R>[] = []
  /** claimed, then stopped before their attempt ended */
  const unsent: J[] = []
  let sleeping: { at: number; cancel: () => void } | null = null
  let stopper = new AbortController()

  function schedule() {
    if (!running || scheduled) return
    if (stepping) {
      again = true
      return
    }
    scheduled = true
    const wait = lastTick + BATCH_MS - performance.now()
    if (wait > 0) setTimeout(tick, wait)
    else setImmediate(tick)
  }

  function tick() {
    scheduled = false
    lastTick = performance.now()
    if (!running) return
    if (stepping) {
      again = true
      return
    }
    stepping = step(true).finally(() => {
      stepping = null
      if (again) {
        again = false
        schedule()
      }
    })
  }

  /** one result, one store call: a row that cannot be written is dropped (logged), never retried forever */
  async function record(f: Finished<J, R>, after: (() => void)[]) {
    try {
      const then = await deps.queue.complete(f.job, f.result, f.at)
      if (then) after.push(then)
    } catch (err) {
      deps.logger.error(`${deps.name} result not recorded`, { delivery_id: f.job.id, error: (err as Error).message })
    }
  }

  async function step(claiming: boolean) {
    const after: (() => void)[] = []
    for (const f of finished.splice(0)) await record(f, after)
    for (const then of after) then()
    if (!claiming || !running) return
    let claimed: J[]
    try {
      claimed = await claims.claim(deps.clock.now())
    } catch (err) {
      // the database refused (unreachable, disk full): look again shortly
      deps.logger.error(`${deps.name} queue not read`, { error: (err as Error).message })
      sleepFor(1000)
      return
    }
    for (const job of claimed) begin(job)
    await sleepUntilDue()
  }

  function sleepFor(ms: number) {
    const at = deps.clock.now() + ms
    if (sleeping && sleeping.at <= at) return
    sleeping?.cancel()
    const cancel = deps.timers.after(ms, () => {
      sleeping = null
      claims.rescanSoon()
      schedule()
    })
    sleeping = { at, cancel }
  }

  /**
   * One timer, at the earliest pending row. Rows held back by the caps go when an attempt ends
   * (which ticks); meanwhile the queue is asked again every RESCAN_MS for accounts whose rows
   * came due.
   */
  async function sleepUntilDue() {
    const now = deps.clock.now()
    let next: number | null
    try {
      next = await deps.queue.nextDueAt()
    } catch {
      next = now + 1000
    }
    if (!running) return
    if (next === null) sleepFor(MAX_SLEEP_MS)
    else if (next > now) sleepFor(Math.min(next - now, MAX_SLEEP_MS))
    else sleepFor(RESCAN_MS)
  }

  function begin(job: J) {
    const signal = stopper.signal
    const run = deps
      .send(job, signal)
      .then((result) => {
        // stopped mid-attempt: not recorded; the claim goes back (or waits for the next start)
        if (signal.aborted) unsent.push(job)
        else finished.push({ job, result, at: deps.clock.now() })
      })
      .catch((err: Error) => deps.logger.error(`${deps.name} attempt failed unexpectedly`, { delivery_id: job.id, error: err.message }))
      .finally(() => {
        slots.release(job.account, job.destination)
        active.delete(run)
        schedule()
      })
    active.add(run)
  }

  return {
    /** there may be new rows (for this account and these destinations, when given): look now (a no-op before start) */
    wake(rows?: { account: string; destinations: string[] }) {
      if (rows) claims.told(rows.account, rows.destinations)
      else claims.rescanSoon() // whose rows, only the queue knows
      schedule()
    },
    /** what a stopped process had claimed is pending again (one SQLite hub), then the queue is worked */
    async start() {
      if (running) return
      running = true
      claims.rescanSoon()
      stopper = new AbortController()
      try {
        await deps.queue.releaseClaims()
      } catch (err) {
        deps.logger.error(`${deps.name} claims of the last run not released`, { error: (err as Error).message })
      }
      schedule()
    },
    /** stops claiming, aborts attempts in flight (their claims go back), records what finished */
    async stop() {
      running = false
      sleeping?.cancel()
      sleeping = null
      stopper.abort()
      await Promise.all(active)
      await stepping
      if (finished.length) await step(false)
      const back = unsent.splice(0)
      if (back.length) {
        try {
          await claims.release(back, deps.clock.now())
        } catch (err) {
          deps.logger.error(`${deps.name} claims not released`, { error: (err as Error).message })
        }
      }
    },
    /** resolves when nothing is in flight, unrecorded or due and claimable (tests await it instead of sleeping) */
    async idle() {
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve))
        if (stepping) await stepping
        if (!active.size && !scheduled && !stepping && !again && !finished.length) return
        if (active.size) await Promise.all(active)
      }
    },
    inFlight: () => slots.inFlight(),
  }
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>
