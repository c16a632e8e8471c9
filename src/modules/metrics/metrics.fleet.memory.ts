import type { SparkMinutes } from './metrics.series.store'

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
