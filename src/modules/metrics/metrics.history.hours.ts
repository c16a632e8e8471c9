import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { HOUR_MS } from './metrics.fields'
import { RAW_MAIN } from './metrics.hot.rows'

/**
 * Per device, how many entries the raw table's (device, ts) index holds in each hour, so that a
 * history page deep in a month finds its position by adding up hours instead of stepping over
 * every entry above it (45 ns each: 12 ms at the far end of 30 days at 10 s).
 *
 * Exact by construction, whatever runs the rollups and whenever: the counts are the index's own,
 * counted when first needed, and temporary triggers on the raw table mark an hour stale on every
 * row inserted into it or deleted from it (sealing, a pruning, a deleted device), on the one
 * connection the hub writes through (the raw table's temporary view already relies on that). The
 * rollup tiers' sample counts were not used: a late sample is in the raw table before its hour is
 * rolled again, and the writer's note of it is lost with a restart.
 *
 * Bounded: per device a span of at most SPAN_HOURS hours (older ones are stepped over as before),
 * across devices at most CACHED_HOURS hours, the devices read longest ago dropped first; the stale
 * marks are kept only within the spans held.
 */

/** Hours held per device: a year and a month (raw retention is 7 days by default). */
export const SPAN_HOURS = 24 * 400
/** Hours held across devices (4 bytes each): about a thousand devices' month. */
export const CACHED_HOURS = 1 << 20

/** The counts of one device: hour i is [lo + i·HOUR_MS, lo + (i + 1)·HOUR_MS); −1 where not counted yet. */
interface Span {
  lo: number
  counts: Int32Array
}

const hourStart = (ts: number) => Math.floor(ts / HOUR_MS) * HOUR_MS

/** The bounds (the tests make them small). */
export interface HourCountLimits {
  spanHours: number
  cachedHours: number
}

const DEFAULT_LIMITS: HourCountLimits = { spanHours: SPAN_HOURS, cachedHours: CACHED_HOURS }

function build(sqlite: Database, limits: HourCountLimits | undefined) {
  const { spanHours, cachedHours } = limits ?? DEFAULT_LIMITS
  sqlite.run('CREATE TEMP TABLE IF NOT EXISTS metric_history_spans (device_seq INTEGER PRIMARY KEY, lo INTEGER NOT NULL, hi INTEGER NOT NULL)')
  sqlite.run(
    'CREATE TEMP TABLE IF NOT EXISTS metric_history_stale (device_seq INTEGER NOT NULL, hour INTEGER NOT NULL, PRIMARY KEY (device_seq, hour)) WITHOUT ROWID',
  )
  // one instance per connection (below): it starts with nothing held
  sqlite.run('DELETE FROM temp.metric_history_spans')
  sqlite.run('DELETE FROM temp.metric_history_stale')
  const mark = (row: 'NEW' | 'OLD') =>
    `INSERT OR IGNORE INTO temp.metric_history_stale SELECT device_seq, (${row}.ts - lo) / ${HOUR_MS} FROM temp.metric_history_spans WHERE device_seq = ${row}.device_seq AND ${row}.ts >= lo AND ${row}.ts < hi;`
  sqlite.run(`CREATE TEMP TRIGGER IF NOT EXISTS metric_history_insert AFTER INSERT ON ${RAW_MAIN} BEGIN ${mark('NEW')} END`)
  sqlite.run(`CREATE TEMP TRIGGER IF NOT EXISTS metric_history_delete AFTER DELETE ON ${RAW_MAIN} BEGIN ${mark('OLD')} END`)
  // nothing moves a row in time today; should anything, both hours are marked
  sqlite.run(`CREATE TEMP TRIGGER IF NOT EXISTS metric_history_move AFTER UPDATE OF device_seq, ts ON ${RAW_MAIN} BEGIN ${mark('OLD')} ${mark('NEW')} END`)

  const range = 'device_seq = ?1 AND ts >= ?2 AND ts <= ?3'
  // (device_seq, ts) alone: no row is read
  const count = sqlite.query<{ n: number }, [number, number, number]>(`SELECT count(*) AS n FROM ${RAW_MAIN} WHERE ${range}`)
  const at = sqlite.query<{ ts: number }, [number, number, number, number]>(`SELECT ts FROM ${RAW_MAIN} WHERE ${range} ORDER BY ts DESC LIMIT 1 OFFSET ?4`)
  const newest = sqlite.query<{ ts: number }, [number]>(`SELECT ts FROM ${RAW_MAIN} WHERE device_seq = ? ORDER BY ts DESC LIMIT 1`)
  const oldest = sqlite.query<{ ts: number }, [number]>(`SELECT ts FROM ${RAW_MAIN} WHERE device_seq = ? ORDER BY ts LIMIT 1`)
  const stale = sqlite.query<{ hour: number }, [number]>('SELECT hour FROM temp.metric_history_stale WHERE device_seq = ?')
  const forgetStale = sqlite.query<never, [number]>('DELETE FROM temp.metric_history_stale WHERE device_seq = ?')
  const setSpan = sqlite.query<never, [number, number, number]>('INSERT OR REPLACE INTO temp.metric_history_spans (device_seq, lo, hi) VALUES (?, ?, ?)')
  const dropSpan = sqlite.query<never, [number]>('DELETE FROM temp.metric_history_spans WHERE device_seq = ?')

  /** by device, the device read last at the end (Map order) */
  const spans = new Map<number, Span>()
  let held = 0

  const drop = (seq: number) => {
    const s = spans.get(seq)
    if (!s) return
    spans.delete(seq)
    held -= s.counts.length
    dropSpan.run(seq)
    forgetStale.run(seq)
  }

  const keep = (seq: number, lo: number, counts: Int32Array) => {
    const old = spans.get(seq)
    if (old) held -= old.counts.length
    spans.delete(seq)
    spans.set(seq, { lo, counts })
    held += counts.length
    setSpan.run(seq, lo, lo + counts.length * HOUR_MS)
    for (const first of spans.keys()) {
      if (held <= cachedHours || first === seq) break
      drop(first)
    }
    return spans.get(seq)
  }

  /**
   * The device's span, its stale hours forgotten, reaching up to its newest row; undefined when
   * it has no row. Inside a transaction nothing is kept: a rollback would take back the marks of
   * rows counted in it.
   */
  const current = (seq: number): Span | undefined => {
    const s = spans.get(seq)
    if (s) {
      const hours = stale.values(seq)
      if (hours.length) {
        for (const [h] of hours) s.counts[h as number] = -1
        forgetStale.run(seq)
      }
      spans.delete(seq)
      spans.set(seq, s)
    }
    const top = newest.get(seq)?.ts
    if (top === undefined) {
      drop(seq)
      return undefined
    }
    const hi = hourStart(top) + HOUR_MS
    if (s && s.lo + s.counts.length * HOUR_MS >= hi) return s
    const lo = Math.max(s ? s.lo : hourStart(oldest.get(seq)!.ts), hi - spanHours * HOUR_MS)
    const counts = new Int32Array((hi - lo) / HOUR_MS).fill(-1)
    if (s) {
      // the hours kept carry over (their stale marks are forgotten above)
      const from = (lo - s.lo) / HOUR_MS
      counts.set(s.counts.subarray(from, Math.min(s.counts.length, from + counts.length)))
    }
    return keep(seq, lo, counts)
  }

  return {
    /**
     * The time of the raw table's p-th (0-based) index entry in [from, to], newest first, any
     * kind; null past the last. Whole hours are taken from the counts, and only the hour holding
     * the entry (and a partial hour at either end of the range) is stepped through.
     */
    at(seq: number, from: number, to: number, p: number): number | null {
      if (sqlite.inTransaction) return at.get(seq, from, to, p)?.ts ?? null
      const s = current(seq)
      if (!s) return null
      const lo = s.lo
      const hi = lo + s.counts.length * HOUR_MS
      let rest = p
      for (let i = Math.min(s.counts.length, Math.floor((Math.min(to, hi - 1) - lo) / HOUR_MS) + 1) - 1; i >= 0; i--) {
        const a = lo + i * HOUR_MS
        const b = a + HOUR_MS - 1
        if (b < from) return null
        const whole = a >= from && b <= to
        let n = whole ? s.counts[i]! : -1
        if (n < 0) {
          n = count.get(seq, Math.max(a, from), Math.min(b, to))!.n
          if (whole) s.counts[i] = n
        }
        if (rest < n) return at.get(seq, Math.max(a, from), Math.min(b, to), rest)!.ts
        rest -= n
      }
      // below the span: stepped over as before
      return from < lo ? (at.get(seq, from, Math.min(to, lo - 1), rest)?.ts ?? null) : null
    },
    /** devices and hours held, for the tests of the bounds */
    held: () => ({ devices: spans.size, hours: held }),
  }
}

export type HourCounts = ReturnType<typeof build>
/**
 * The hour counts of one connection, made once: its triggers mark the stale hours of the spans
 * this instance holds (the bounds are the first call's).
 */
export const openHourCounts: (sqlite: Database, limits?: HourCountLimits) => HourCounts = perConnection(build)
