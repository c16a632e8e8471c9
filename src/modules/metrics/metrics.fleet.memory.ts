/** One device's CPU minutes from the 1m tier, kept between fleet answers (see metrics.fleet.ts). */
export interface SparkMinutes {
  /** the minute of avg[0] */
  first: number
  /** the tier had been rolled up to here when they were read */
  rolled: number
  /** when they were last read whole */
  readAt: number
  /** per minute the average, NaN for none */
  avg: Float64Array
}

/** Devices whose CPU minutes and interval are kept; past this a cache starts over. */
const MAX_SPARKS = 20_000

/**
 * What the fleet overview keeps between answers, per device: its measured reporting interval and
 * its CPU minutes of the last hour (see metrics.fleet.ts). On SQLite kept per connection with the
 * series store's statements; on PostgreSQL one per hub.
 */
export function fleetMemory() {
  const sparks = new Map<number, SparkMinutes>()
  const intervals = new Map<number, { ms: number | null; at: number }>()
  return {
    /** per device seq its measured interval and when it was measured */
    intervals: {
      get: (seq: number) => intervals.get(seq),
      set(seq: number, ms: number | null, at: number) {
        if (intervals.size >= MAX_SPARKS && !intervals.has(seq)) intervals.clear()
        intervals.set(seq, { ms, at })
      },
    },
    /** per device seq its cached CPU minutes */
    sparks: {
      get: (seq: number) => sparks.get(seq),
      set(seq: number, v: SparkMinutes) {
        if (sparks.size >= MAX_SPARKS && !sparks.has(seq)) sparks.clear()
        sparks.set(seq, v)
      },
    },
  }
}

export type FleetMemory = ReturnType<typeof fleetMemory>
