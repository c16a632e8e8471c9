import type { Timers } from '../../src/lib/timers'

/** Timers that fire only when the test says so: time passes by `fire()`, never by waiting. */
export function manualTimers() {
  let next = 0
  const pending = new Map<number, { ms: number; fn: () => void }>()
  const timers: Timers = {
    after(ms, fn) {
      const id = next++
      pending.set(id, { ms, fn })
      return () => pending.delete(id)
    },
  }
  return {
    timers,
    /** runs every call due so far (not the ones they schedule); returns how many ran */
    fire(): number {
      const due = [...pending.values()]
      pending.clear()
      for (const t of due) t.fn()
      return due.length
    },
    pending: () => pending.size,
  }
}
