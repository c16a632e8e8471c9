import type { Timers } from '../lib/timers'

/**
 * How long a job holds the event loop: the requests that arrive meanwhile wait for the longest
 * synchronous stretch of it, not for the whole run (which may await many times). `watch()`
 * starts looking; the function it returns stops and answers the longest stretch seen (ms).
 */
export interface LoopProbe {
  watch(): () => number
}

/**
 * A timer every `everyMs` while watched: each one that fires late by more than its period was
 * held by a stretch of that length, the job's or (run beside it) another's or a request's. The
 * last stretch, up to the moment the run ends, is counted too. Read to within `everyMs`; costs a
 * timer a millisecond while a job runs, so the hub sets it up at the debug log level only.
 */
export function loopProbe(timers: Timers, now: () => number = () => performance.now(), everyMs = 1): LoopProbe {
  return {
    watch() {
      let last = now()
      let longest = 0
      let stopped = false
      const seen = () => {
        const t = now()
        longest = Math.max(longest, t - last - everyMs)
        last = t
      }
      let cancel = timers.after(everyMs, function tick() {
        seen()
        if (!stopped) cancel = timers.after(everyMs, tick)
      })
      return () => {
        stopped = true
        cancel()
        // the stretch that ends the run: it was not interrupted by a timer, so it counts whole
        const t = now()
        longest = Math.max(longest, t - last)
        return Math.max(0, longest)
      }
    },
  }
}
