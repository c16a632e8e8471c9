import type { Database } from 'bun:sqlite'
import { createRawStore, type ResultRow } from './checks.raw'

export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000
/** raw attempts are kept this long; hours 90 days, days 400 */
export const RAW_KEEP_MS = 2 * DAY_MS
const HOURS_KEEP_MS = 90 * DAY_MS
const DAYS_KEEP_MS = 400 * DAY_MS

/** Upper bounds (ms) of the day histogram's buckets; the last takes everything slower. */
export const BUCKET_BOUNDS = [10, 20, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10_000, 30_000, Infinity]

export interface Percentiles {
  p50: number | null
  p95: number | null
  p99: number | null
}

const bucketOf = (ms: number) => BUCKET_BOUNDS.findIndex((b) => ms <= b)

export function percentilesOf(sorted: number[]): Percentiles {
  if (!sorted.length) return { p50: null, p95: null, p99: null }
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) }
}

/** Percentiles read from histogram counts: the upper bound of the bucket the rank falls in (the maximum for the last). */
export function histPercentiles(counts: number[], maxMs: number | null): Percentiles {
  const n = counts.reduce((a, b) => a + b, 0)
  if (!n) return { p50: null, p95: null, p99: null }
  const at = (q: number) => {
    const rank = Math.ceil(q * n)
    let seen = 0
    for (let i = 0; i < counts.length; i++) {
      seen += counts[i]!
      if (seen >= rank) return Math.min(BUCKET_BOUNDS[i]!, maxMs ?? Infinity)
    }
    return maxMs
  }
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) }
}

const histOf = (blob: Uint8Array | null) => {
  const out = new Array<number>(BUCKET_BOUNDS.length).fill(0)
  if (!blob) return out
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
  for (let i = 0; i < out.length && i * 4 < blob.byteLength; i++) out[i] = view.getUint32(i * 4, true)
  return out
}

const histBytes = (counts: number[]) => {
  const buf = new Uint8Array(counts.length * 4)
  const view = new DataView(buf.buffer)
  for (const [i, c] of counts.entries()) view.setUint32(i * 4, Math.min(c, 0xffffffff), true)
  return buf
}

/** response times of the successful attempts, sorted */
const okTimesOf = (rows: ResultRow[]) => rows.flatMap((r) => (r.ok === 1 && r.response_ms !== null ? [r.response_ms] : [])).sort((a, b) => a - b)

/** raw attempts summed into steps of `stepMs` from `from` (b: the step's index) */
function bucketsOf(rows: ResultRow[], from: number, stepMs: number) {
  const byStep = new Map<number, { b: number; total: number; ok: number; sum_ms: number; n_ms: number; max_ms: number | null }>()
  for (const r of rows) {
    const b = Math.floor((r.ts - from) / stepMs)
    let s = byStep.get(b)
    if (!s) byStep.set(b, (s = { b, total: 0, ok: 0, sum_ms: 0, n_ms: 0, max_ms: null }))
    s.total++
    s.ok += r.ok
    if (r.ok === 1 && r.response_ms !== null) {
      s.sum_ms += r.response_ms
      s.n_ms++
      s.max_ms = Math.max(s.max_ms ?? 0, r.response_ms)
    }
  }
  return [...byStep.values()]
}

const pct = (ok: number, total: number) => (total ? Math.round((ok / total) * 1e5) / 1e3 : null)

/** A step of a check's figures: response times and uptime, null where nothing was measured. */
export interface Bucket {
  t: number
  avg_ms: number | null
  max_ms: number | null
  uptime: number | null
  total: number
}

/**
 * The results tiers, on either engine (this file: SQLite; checks.results.pg.ts: PostgreSQL): raw
 * attempts (48 h, rows then packed hours), hour and day summaries written as each attempt is
 * stored (no rollup job to fall behind: the checks store's `record` writes them in its
 * transaction), and the reads the API and status pages make of them.
 */
export interface ResultsStore {
  /** the newest successful attempt among the raw ones (48 h), or null */
  lastOk(seq: number): Promise<number | null>
  /** percent of attempts that succeeded since `now - spanMs`, from the finest tier that covers it */
  uptime(seq: number, now: number, spanMs: number): Promise<number | null>
  /** exact percentiles from raw attempts within 48 h, else from the day histograms */
  percentiles(seq: number, now: number, spanMs: number): Promise<Percentiles>
  /**
   * Response times and uptime in `count` steps of `stepMs` from `from`, from the finest tier that
   * covers the span: raw attempts within 48 h at steps under an hour, hours at steps under a day, else days.
   */
  buckets(seq: number, from: number, stepMs: number, count: number): Promise<Bucket[]>
  /** the day rows from `firstDay` on, in day order */
  days(seq: number, firstDay: number): Promise<{ day: number; total: number; ok: number }[]>
  /** a page of attempts, newest first, places in order within a time; `place` -1 reads every place */
  page(seq: number, place: number, limit: number, offset: number): Promise<{ rows: ResultRow[]; total: number }>
  /** packs up to `max` finished hours of raw rows older than `before` (the hour `before` falls in stays rows); the number packed */
  packBefore(before: number, max: number): Promise<number>
  /** raw attempts past their 48 h (run with the packing) */
  pruneRaw(now: number): Promise<number>
  /** each tier past its keep; the rows removed */
  prune(now: number): Promise<number>
}

/** The results store on SQLite, over its synchronous statements (one set per connection: sqliteChecks). */
export function resultsStoreOf(s: ResultsSqlite): ResultsStore {
  return {
    lastOk: async (seq) => s.lastOk(seq),
    uptime: async (seq, now, spanMs) => s.uptime(seq, now, spanMs),
    percentiles: async (seq, now, spanMs) => s.percentiles(seq, now, spanMs),
    buckets: async (seq, from, stepMs, count) => s.buckets(seq, from, stepMs, count),
    days: async (seq, firstDay) => s.days(seq, firstDay),
    page: async (seq, place, limit, offset) => s.page(seq, place, limit, offset),
    packBefore: async (before, max) => s.packBefore(before, max),
    pruneRaw: async (now) => s.pruneRaw(now),
    prune: async (now) => s.prune(now),
  }
}

export const bucketOfMs = bucketOf
export { histBytes, histOf, pct }

/** The results tiers on SQLite, synchronous: the checks store records into them inside its transactions. */
export function createResultsSqlite(sqlite: Database) {
  const raw = createRawStore(sqlite)
  const upsertHour = sqlite.query(
    `INSERT INTO check_hours (check_seq, hour, total, ok, sum_ms, n_ms, max_ms) VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6)
     ON CONFLICT (check_seq, hour) DO UPDATE SET total = total + 1, ok = ok + ?3, sum_ms = sum_ms + ?4, n_ms = n_ms + ?5,
       max_ms = max(coalesce(max_ms, ?6), coalesce(?6, max_ms))`,
  )
  const dayRow = sqlite.query<{ hist: Uint8Array | null }, [number, number]>('SELECT hist FROM check_days WHERE check_seq = ? AND day = ?')
  const upsertDay = sqlite.query(
    `INSERT INTO check_days (check_seq, day, total, ok, sum_ms, n_ms, max_ms, hist) VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6, ?7)
     ON CONFLICT (check_seq, day) DO UPDATE SET total = total + 1, ok = ok + ?3, sum_ms = sum_ms + ?4, n_ms = n_ms + ?5,
       max_ms = max(coalesce(max_ms, ?6), coalesce(?6, max_ms)), hist = ?7`,
  )
  const hourCount = sqlite.query<{ total: number | null; ok: number | null }, [number, number]>(
    'SELECT sum(total) AS total, sum(ok) AS ok FROM check_hours WHERE check_seq = ? AND hour >= ?',
  )
  const dayCount = sqlite.query<{ total: number | null; ok: number | null }, [number, number]>(
    'SELECT sum(total) AS total, sum(ok) AS ok FROM check_days WHERE check_seq = ? AND day >= ?',
  )
  const dayHists = sqlite.query<{ hist: Uint8Array | null; max_ms: number | null }, [number, number]>(
    'SELECT hist, max_ms FROM check_days WHERE check_seq = ? AND day >= ?',
  )
  const hourBuckets = sqlite.query<
    { b: number; total: number; ok: number; sum_ms: number; n_ms: number; max_ms: number | null },
    [number, number, number, number]
  >(
    `SELECT (hour - ?3) / ?4 AS b, sum(total) AS total, sum(ok) AS ok, sum(sum_ms) AS sum_ms, sum(n_ms) AS n_ms, max(max_ms) AS max_ms
     FROM check_hours WHERE check_seq = ?1 AND hour >= ?2 GROUP BY b`,
  )
  const dayBuckets = sqlite.query<{ b: number; total: number; ok: number; sum_ms: number; n_ms: number; max_ms: number | null }, [number, number, number]>(
    `SELECT day - ?3 AS b, total, ok, sum_ms, n_ms, max_ms FROM check_days WHERE check_seq = ?1 AND day >= ?2 ORDER BY day`,
  )

  return {
    /** Stores one attempt in every tier; false when this (check, place, time) was stored before (a replay). */
    record(r: ResultRow): boolean {
      if (!raw.insert(r)) return false
      const ms = r.ok && r.response_ms !== null ? Math.round(r.response_ms) : null
      const hour = Math.floor(r.ts / HOUR_MS)
      const day = Math.floor(r.ts / DAY_MS)
      upsertHour.run(r.check_seq, hour, r.ok, ms ?? 0, ms === null ? 0 : 1, ms)
      const hist = histOf(dayRow.get(r.check_seq, day)?.hist ?? null)
      if (ms !== null) hist[bucketOf(ms)]!++
      upsertDay.run(r.check_seq, day, r.ok, ms ?? 0, ms === null ? 0 : 1, ms, histBytes(hist))
      return true
    },
    /** the newest successful attempt among the raw ones (48 h), or null */
    lastOk: (seq: number): number | null => raw.lastOk(seq),
    /** percent of attempts that succeeded since `since`, from the finest tier that covers it */
    uptime(seq: number, now: number, spanMs: number): number | null {
      const since = now - spanMs
      if (spanMs <= RAW_KEEP_MS) {
        const r = raw.count(seq, since)
        return pct(r.ok, r.total)
      }
      const r = spanMs <= 31 * DAY_MS ? hourCount.get(seq, Math.floor(since / HOUR_MS)) : dayCount.get(seq, Math.floor(since / DAY_MS))
      return pct(r?.ok ?? 0, r?.total ?? 0)
    },
    /** exact percentiles from raw attempts within 48 h, else from the day histograms */
    percentiles(seq: number, now: number, spanMs: number): Percentiles {
      if (spanMs <= RAW_KEEP_MS) return percentilesOf(okTimesOf(raw.attempts(seq, now - spanMs, Infinity)))
      const rows = dayHists.all(seq, Math.floor((now - spanMs) / DAY_MS))
      const counts = new Array<number>(BUCKET_BOUNDS.length).fill(0)
      let max: number | null = null
      for (const row of rows) {
        for (const [i, c] of histOf(row.hist).entries()) counts[i]! += c
        if (row.max_ms !== null) max = Math.max(max ?? 0, row.max_ms)
      }
      return histPercentiles(counts, max)
    },
    /**
     * Response times and uptime in `count` steps of `stepMs` from `from` (null where nothing was
     * measured), from the finest tier that covers the span: raw attempts within 48 h at steps
     * under an hour, hours at steps under a day, else days.
     */
    buckets(seq: number, from: number, stepMs: number, count: number): Bucket[] {
      const out = Array.from({ length: count }, (_, i) => ({ t: from + i * stepMs, total: 0, ok: 0, sum_ms: 0, n_ms: 0, max_ms: null as number | null }))
      let rows: { b: number; total: number; ok: number; sum_ms: number | null; n_ms: number; max_ms: number | null }[]
      const now = from + count * stepMs
      if (now - from <= RAW_KEEP_MS && stepMs < HOUR_MS) rows = bucketsOf(raw.attempts(seq, from, Infinity), from, stepMs)
      else if (stepMs < DAY_MS) rows = hourBuckets.all(seq, Math.floor(from / HOUR_MS), Math.floor(from / HOUR_MS), stepMs / HOUR_MS)
      else rows = dayBuckets.all(seq, Math.floor(from / DAY_MS), Math.floor(from / DAY_MS))
      for (const r of rows) {
        const slot = out[r.b]
        if (!slot) continue
        Object.assign(slot, { total: r.total, ok: r.ok, sum_ms: r.sum_ms ?? 0, n_ms: r.n_ms, max_ms: r.max_ms })
      }
      return out.map((s) => ({ t: s.t, avg_ms: s.n_ms ? Math.round(s.sum_ms / s.n_ms) : null, max_ms: s.max_ms, uptime: pct(s.ok, s.total), total: s.total }))
    },
    /** the day rows of the last `days` UTC days: uptime per day */
    days(seq: number, firstDay: number) {
      return dayBuckets.all(seq, firstDay, firstDay).map((r) => ({ day: firstDay + r.b, total: r.total, ok: r.ok }))
    },
    page: (seq: number, place: number, limit: number, offset: number) => raw.page(seq, place, limit, offset),
    /** packs up to `max` finished hours of raw rows older than `before` (the hour `before` falls in stays rows) */
    packBefore: (before: number, max: number) => raw.packBefore(before, max),
    drop(seq: number) {
      raw.drop(seq)
      for (const table of ['check_hours', 'check_days', 'check_places']) sqlite.query(`DELETE FROM ${table} WHERE check_seq = ?`).run(seq)
    },
    /** raw attempts past their 48 h (run hourly with the packing) */
    pruneRaw: (now: number) => raw.prune(now - RAW_KEEP_MS),
    /** each tier past its keep; returns the rows removed */
    prune(now: number): number {
      let n = raw.prune(now - RAW_KEEP_MS)
      n += sqlite.query('DELETE FROM check_hours WHERE hour < ?').run(Math.floor((now - HOURS_KEEP_MS) / HOUR_MS)).changes
      n += sqlite.query('DELETE FROM check_days WHERE day < ?').run(Math.floor((now - DAYS_KEEP_MS) / DAY_MS)).changes
      return n
    },
  }
}

export type ResultsSqlite = ReturnType<typeof createResultsSqlite>
