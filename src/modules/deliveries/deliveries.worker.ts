import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import type { Timers } from '../../lib/timers'
import { createClaimer, RESCAN_MS } from './deliveries.claim'
import type { Candidate, DueAccount, Job } from './deliveries.due'
import { createSlots, type SlotCaps } from './deliveries.slots'

export type { Candidate, Job } from './deliveries.due'

/**
 * A durable delivery queue as the core works it; each domain keeps its own table. Rows are
 * pending (due at a time), sending (claimed) or finished; what finished means is the domain's.
 */
export interface DeliveryQueue<J extends Job, R> {
  /** the accounts with a pending row due at `now`, with the destinations of those rows */
  dueAccounts(now: number): DueAccount[]
  /** up to `limit` of an account's due rows, oldest first, none for the destinations listed */
  dueOf(account: string, now: number, skip: string[], limit: number): Candidate[]
  /** marks a due row sending and returns what sending it needs; null when it cannot go now */
  take(id: string): J | null
  /**
   * Writes an attempt's result (inside a transaction). A delivery deleted meanwhile is
   * dropped here, never an error. May return what to do once it is committed.
   */
  complete(job: J, result: R, at: number): (() => void) | undefined
  /** when the next pending row is due; null when none is pending */
  nextDueAt(): number | null
  /** at start: what a stopped process had claimed is pending again */
  releaseClaims(): void
}

export interface WorkerDeps<J extends Job, R> {
  /** names the queue in log lines */
  name: string
  queue: DeliveryQueue<J, R>
  /** one attempt; `stop` aborts it when the service stops (then its result is not recorded) */
  send: (job: J, stop: AbortSignal) => Promise<R>
  /** runs `fn` in one SQLite transaction (nested: a savepoint) */
  transaction: <T>(fn: () => T) => T
  caps: SlotCaps
  clock: Clock
  timers: Timers
  logger: Logger
}

/** the longest the worker sleeps without looking at the queue (a clock step, a missed wake) */
const MAX_SLEEP_MS = 60_000
/** while busy, ticks are at least this far apart (ms): one commit records what finished meanwhile */
const BATCH_MS = 2

interface Finished<J, R> {
  job: J
  result: R
  at: number
}

/**
 * Works a durable delivery queue. A tick (at once when rows are written, after an attempt ends,
 * or by a timer at the next due retry) records the attempts finished since the last one and
 * claims due rows, in one transaction. Claims go round the accounts in turn, one row each per
 * round, within the caps (SlotCaps): no account and no destination can take every slot, and
 * no attempt waits for another to finish. At start, what a killed process had claimed is
 * pending again: delivery is at least once.
 */
export function createDeliveryWorker<J extends Job, R>(deps: WorkerDeps<J, R>) {
  const slots = createSlots(deps.caps)
  const claimer = createClaimer(deps.queue, slots, deps.caps)
  let running = false
  let scheduled = false
  let lastTick = Number.NEGATIVE_INFINITY
  const active = new Set<Promise<void>>()
  const finished: Finished<J, R>[] = []
  let sleeping: { at: number; cancel: () => void } | null = null
  let stopper = new AbortController()

  function schedule() {
    if (!running || scheduled) return
    scheduled = true
    const wait = lastTick + BATCH_MS - performance.now()
    if (wait > 0) setTimeout(tick, wait)
    else setImmediate(tick)
  }

  function tick() {
    scheduled = false
    lastTick = performance.now()
    if (running) step(true)
  }

  /** one result, in its own savepoint: a row that cannot be written is dropped, never retried forever */
  function record(f: Finished<J, R>, after: (() => void)[]) {
    try {
      const then = deps.transaction(() => deps.queue.complete(f.job, f.result, f.at))
      if (then) after.push(then)
    } catch (err) {
      deps.logger.error(`${deps.name} result not recorded`, { delivery_id: f.job.id, error: (err as Error).message })
    }
  }

  function step(claiming: boolean) {
    const batch = finished.splice(0)
    const now = deps.clock.now()
    const after: (() => void)[] = []
    let claimed: J[] = []
    try {
      deps.transaction(() => {
        for (const f of batch) record(f, after)
        if (claiming) claimed = claimer.claim(now)
      })
    } catch (err) {
      // the database refused the commit (disk full, I/O): keep the results and try again shortly
      finished.unshift(...batch)
      deps.logger.error(`${deps.name} queue not written`, { error: (err as Error).message })
      if (claiming) sleepFor(1000)
      return
    }
    for (const then of after) then()
    for (const job of claimed) begin(job)
    if (claiming) sleepUntilDue()
  }

  function sleepFor(ms: number) {
    const at = deps.clock.now() + ms
    if (sleeping && sleeping.at <= at) return
    sleeping?.cancel()
    const cancel = deps.timers.after(ms, () => {
      sleeping = null
      claimer.rescanSoon()
      schedule()
    })
    sleeping = { at, cancel }
  }

  /**
   * One timer, at the earliest pending row. Rows held back by the caps go when an attempt ends
   * (which ticks); meanwhile the queue is asked again every RESCAN_MS for accounts whose rows
   * came due.
   */
  function sleepUntilDue() {
    const now = deps.clock.now()
    const next = deps.queue.nextDueAt()
    if (next === null) sleepFor(MAX_SLEEP_MS)
    else if (next > now) sleepFor(Math.min(next - now, MAX_SLEEP_MS))
    else sleepFor(RESCAN_MS)
  }

  function begin(job: J) {
    const run = deps
      .send(job, stopper.signal)
      .then((result) => {
        // stopped mid-attempt: left claimed, pending again at the next start
        if (!stopper.signal.aborted) finished.push({ job, result, at: deps.clock.now() })
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
      if (rows) claimer.told(rows.account, rows.destinations)
      else claimer.rescanSoon() // whose rows, only the queue knows
      schedule()
    },
    /** what a stopped process had claimed is pending again, then the queue is worked */
    start() {
      if (running) return
      running = true
      claimer.rescanSoon()
      stopper = new AbortController()
      deps.queue.releaseClaims()
      schedule()
    },
    /** stops claiming, aborts attempts in flight (they go again after the next start), records what finished */
    async stop() {
      running = false
      sleeping?.cancel()
      sleeping = null
      stopper.abort()
      await Promise.all(active)
      if (finished.length) step(false)
    },
    /** resolves when nothing is in flight, unrecorded or due and claimable (tests await it instead of sleeping) */
    async idle() {
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve))
        if (!active.size && !scheduled && !finished.length) return
        if (active.size) await Promise.all(active)
      }
    },
    inFlight: () => slots.inFlight(),
  }
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>
