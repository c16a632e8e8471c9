import type { Timers } from '../../lib/timers'
import { attemptDelivery } from './channels.delivery'
import type { ChannelsDeps } from './channels.service'

/** How many deliveries go out at once: one slow service must not hold up the others for long. */
const BATCH = 8

export interface DeliveryWorker {
  /** resumes what a stopped process left (rows it was sending go back to the queue), then works the queue */
  start(): void
  /** there may be new rows: look now (cheap when idle; a no-op before start) */
  wake(): void
  /** no new attempts; waits for the ones under way */
  stop(): Promise<void>
  /** settles when the current pass over the queue is done (tests await it instead of sleeping) */
  idle(): Promise<void>
}

/**
 * The one worker of the delivery queue. It runs when woken (on enqueue, at start, and by a
 * timer set for the earliest retry), sends what is due in small parallel batches, and sleeps
 * when nothing is: no polling.
 */
export function createDeliveryWorker(deps: ChannelsDeps, timers: Timers): DeliveryWorker {
  let started = false
  let stopped = false
  let running = false
  let again = false
  let current: Promise<void> = Promise.resolve()
  let cancelTimer: (() => void) | null = null

  function schedule() {
    cancelTimer?.()
    cancelTimer = null
    const at = deps.store.nextDueAt()
    if (at === null || stopped) return
    cancelTimer = timers.after(Math.max(0, at - deps.clock.now()), wake)
  }

  /** sends what is due until nothing is, in batches */
  async function drain() {
    for (;;) {
      if (stopped) return
      const mine = deps.store.due(deps.clock.now(), BATCH).filter((r) => deps.store.claim(r.id))
      if (!mine.length) return
      await Promise.all(
        mine.map((row) =>
          attemptDelivery(deps, row).catch((err: Error) => deps.logger.error('channel delivery crashed', { delivery_id: row.id, error: err.message })),
        ),
      )
    }
  }

  function wake() {
    if (!started || stopped) return
    // A wake while a pass runs is not lost: the pass looks again before it ends, and between
    // its last look and `running = false` nothing can run (no await there).
    again = true
    if (running) return
    running = true
    current = (async () => {
      try {
        while (again && !stopped) {
          again = false
          await drain()
        }
      } catch (err) {
        deps.logger.error('channel delivery worker failed', { error: (err as Error).message })
      } finally {
        running = false
      }
      schedule()
    })()
  }

  return {
    start() {
      if (started) return
      started = true
      const resumed = deps.store.unclaimAll(deps.clock.now())
      if (resumed) deps.logger.info('channel deliveries interrupted by a stop are queued again', { count: resumed })
      wake()
    },
    wake,
    async stop() {
      stopped = true
      cancelTimer?.()
      await current
    },
    idle: () => current,
  }
}
