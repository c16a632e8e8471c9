/** The one source of "now" in the service, injected so tests control time. */
export interface Clock {
  now(): number // milliseconds since the Unix epoch
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock tests move by hand; nothing in a test ever sleeps to make time pass. */
export function manualClock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start
  return {
    now: () => t,
    set: (ms: number) => {
      t = ms
    },
    advance: (ms: number) => {
      t += ms
    },
  }
}

export type ManualClock = ReturnType<typeof manualClock>

export const toIso = (ms: number) => new Date(ms).toISOString()
