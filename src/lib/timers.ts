/** Deferred calls, injectable so that tests make time pass instead of waiting for it. */
export interface Timers {
  /** calls `fn` once after `ms`; the returned function cancels it */
  after(ms: number, fn: () => void): () => void
}

/** The event loop's timers; they never keep the process alive on their own. */
export const systemTimers: Timers = {
  after(ms, fn) {
    const timer = setTimeout(fn, ms)
    timer.unref()
    return () => clearTimeout(timer)
  },
}
