/**
 * Memory housekeeping for a long-running server on small machines.
 */

/**
 * Asks JavaScriptCore to let go of what it keeps until asked: compiled code is thrown away (what
 * runs again is recompiled from its source on first use), a full collection runs and freed pages
 * go back to the OS. The server calls it once start-up is over, which drops the code compiled for
 * one-time work (module bodies, migrations, the drizzle schema, the routes and their validators),
 * which also lowers the peak under load (the collector sizes its next cycle from the live heap).
 * `Bun.shrink` is marked deprecated but has no successor; if a future Bun drops it this becomes
 * a no-op.
 */
export const shrink = (): void => (Bun as { shrink?: () => void }).shrink?.()

export interface MemoryReducer {
  /** one check; the timer calls it every `quietMs` */
  tick(): void
  stop(): void
}

/**
 * Gives memory back after a burst: when a whole period passes without a request and at least
 * `minRequests` came since the last shrink, shrinks once. A service under steady traffic never
 * shrinks; a quiet one shrinks once per quiet spell. A hub with a few collectors posting every
 * 10 s is quiet for 5 s after each sample: shrinking then would throw away the request path's
 * compiled code every time, so the next sample runs on recompiled code; it shrinks once its
 * collectors have sent `minRequests` instead.
 */
export function startMemoryReducer(opts: {
  requests: () => number
  quietMs: number
  minRequests?: number
  shrink?: () => void
  onShrink?: () => void
}): MemoryReducer {
  const doShrink = opts.shrink ?? shrink
  const minRequests = opts.minRequests ?? 1
  let seen = opts.requests()
  let sinceShrink = 0
  const tick = () => {
    const n = opts.requests()
    if (n !== seen) {
      sinceShrink += n - seen
      seen = n
    } else if (sinceShrink >= minRequests) {
      sinceShrink = 0
      doShrink()
      opts.onShrink?.()
    }
  }
  const timer = setInterval(tick, opts.quietMs)
  timer.unref()
  return { tick, stop: () => clearInterval(timer) }
}
