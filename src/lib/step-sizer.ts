/**
 * Sizes the bounded steps of a long job run on the event loop so that each holds it about
 * `targetMs`, whatever the machine: returning a page to the file system cost 0.09 to 0.24 ms on
 * an SSD-backed VM, and an SD card is slower still. Starts at `first`, grows at most twofold a
 * step while steps are quick, shrinks at once to what the last step's pace allows.
 */
export interface StepSizer {
  /** the size the next step takes */
  readonly size: number
  /** runs one step of the current size and sizes the next from how long it took */
  run<T>(step: (size: number) => T): T
}

export function stepSizer(o: { first: number; min: number; max: number; targetMs: number; now?: () => number }): StepSizer {
  const now = o.now ?? (() => performance.now())
  let size = clamp(o.first, o.min, o.max)
  return {
    get size() {
      return size
    },
    run(step) {
      const started = now()
      const out = step(size)
      const ms = now() - started
      const fits = ms > 0 ? Math.floor((size * o.targetMs) / ms) : Number.POSITIVE_INFINITY
      size = clamp(Math.min(fits, size * 2), o.min, o.max)
      return out
    },
  }
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v))
