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

/** The second last written out, as its ISO text up to the milliseconds ("2026-11-27T08:00:00.") */
let isoSecond = Number.NaN
let isoPrefix = ''

/**
 * A time as ISO 8601 text, as Date#toISOString writes it. The ingest path writes several per
 * request (each answer's recorded_at, each live event's), nearly all within one second of the
 * one before: that second's text is kept and only the milliseconds are written anew.
 */
export function toIso(ms: number): string {
  const second = Math.floor(ms / 1000)
  if (second !== isoSecond || !Number.isInteger(ms)) {
    const iso = new Date(ms).toISOString() // throws on an invalid time, as before
    if (!Number.isInteger(ms)) return iso
    isoSecond = second
    isoPrefix = iso.slice(0, -4)
    return iso
  }
  const milli = ms - second * 1000
  return `${isoPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`
}
