import { openLibc, ownThreads } from './libc'
import type { Timers } from './timers'

/**
 * JavaScriptCore compiles hot code on threads of its own ("JITWorker"), beside the thread that
 * answers requests. On a small machine they compete for the same cores: traced in the reads bench
 * (docs/performance.md, "Where a read's tail goes"), nearly every slow answer of the latest sample
 * waited 2 to 4 ms while the hub's main thread ran for under 1 ms of it, preempted, and its other
 * threads ran the rest. Those threads are given the lowest priority (nice 19), so the thread that
 * answers requests gets the core first and compiling waits for a spare moment; the code is
 * compiled all the same, a little later. The threads come and go (JavaScriptCore ends one idle
 * for a few seconds and starts another on demand, at the priority of the thread that starts it),
 * so they are looked for again while requests come.
 */

export interface ThreadsPort {
  /** this process's threads: id and name */
  list(): { tid: number; name: string }[]
  /** setpriority(2) of one thread; false when refused */
  setNice(tid: number, nice: number): boolean
}

/** the name JavaScriptCore gives its compiler threads */
export const COMPILER_THREAD = 'JITWorker'

/**
 * One look: every compiler thread not yet lowered is. Returns how many were lowered now. A thread
 * lowered once is not asked again while it lives (the ids of ended ones are forgotten).
 */
export function compilersYielding(port: ThreadsPort, nice = 19): () => number {
  let lowered = new Set<number>()
  return () => {
    const now = new Set<number>()
    let n = 0
    for (const t of port.list()) {
      if (t.name !== COMPILER_THREAD) continue
      if (lowered.has(t.tid)) now.add(t.tid)
      else if (port.setNice(t.tid, nice)) {
        now.add(t.tid)
        n++
      }
    }
    lowered = now
    return n
  }
}

/** The port on Linux: /proc/self/task and the C library's setpriority; null elsewhere or without it. */
export function linuxThreads(): ThreadsPort | null {
  const libc = openLibc({ setpriority: { args: ['i32', 'u32', 'i32'], returns: 'i32' } })
  if (!libc) return null
  return {
    list: ownThreads,
    // PRIO_PROCESS with a thread id: that thread alone on Linux
    setNice: (tid, nice) => libc.setpriority(0, tid, nice) === 0,
  }
}

/**
 * Looks for compiler threads every `everyMs` while requests come (a quiet hub compiles nothing
 * new). The port is made at the first look, not at start: loading setpriority compiles bun:ffi's
 * trampoline, which an idle hub need not hold. Returns the stop.
 */
export function watchCompilers(o: { requests: () => number; port: () => ThreadsPort | null; timers: Timers; everyMs: number }): () => void {
  let look: (() => number) | null | undefined
  let seen = o.requests()
  let cancel = o.timers.after(o.everyMs, function tick() {
    const n = o.requests()
    if (n !== seen) {
      seen = n
      if (look === undefined) {
        const port = o.port()
        look = port && compilersYielding(port)
      }
      look?.()
    }
    cancel = o.timers.after(o.everyMs, tick)
  })
  return () => cancel()
}
