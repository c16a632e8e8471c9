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

/**
 * The JIT policy dist/vigil starts with (scripts/build.ts passes it to `--compile-jit-policy`):
 * JavaScriptCore's tier-up thresholds a hundred times higher. Start-up runs its code once or a
 * few thousand times (module bodies, the TypeBox schemas, ~140 routes, the migrations' check) and
 * yet made the JIT compile about 220 functions, 50 of them with the optimising compiler, all
 * thrown away by the shrink half a second later; the compilers' own code and memory stayed: about
 * 5 MB of an idle hub's RSS (docs/performance.md). At a hundred start-up compiles nothing
 * (test/cli/start-up-jit.test.ts); eight saved a third as much.
 */
export const START_UP_JIT_POLICY = 100

/** The JIT's normal policy again (a no-op where it never changed: from source, in tests). */
export const normalJit = (): void => Bun.unsafe.setJITPolicy(1)

/**
 * Start-up is over: requests are compiled as usual from now on, and what start-up left behind
 * goes back. The server calls it once, half a second after it listens.
 */
export function afterStartUp(o: { normalJit: () => void; shrink: () => void } = { normalJit, shrink }): void {
  o.normalJit()
  o.shrink()
}

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
