import type { Database } from 'bun:sqlite'
import { decodePack, encodePack } from './checks.pack'

const HOUR_MS = 3_600_000

export interface ResultRow {
  check_seq: number
  place: number
  ts: number
  ok: number
  response_ms: number | null
  status_code: number | null
  error: string | null
}

const ROW = 'check_seq, place, ts, ok, response_ms, status_code, error'
/** a whole number ≥ 0, as every attempt is recorded; a stray other value must not hold up packing */
const whole = (v: number | null) => (v === null ? null : Math.max(0, Math.round(v)))
const packable = (r: ResultRow): ResultRow => ({
  ...r,
  ts: Math.round(r.ts),
  ok: r.ok === 1 ? 1 : 0,
  response_ms: whole(r.response_ms),
  status_code: whole(r.status_code),
})

/** newest first, places in order within a time: the order of a check's attempts list */
const newestFirst = (a: ResultRow, b: ResultRow) => b.ts - a.ts || a.place - b.place

/**
 * The raw tier, kept 48 hours, in two forms read as one: the attempts of hours not yet packed as
 * rows of check_results, and each finished hour of a check at a place as one row of check_packs.
 * A (check, place, hour) is in one form only: an attempt that arrives for an hour already packed
 * (an agent replaying its queue) is merged into the packed row, so a replay still stores nothing
 * twice. `place` -1 reads every place.
 */
export function createRawStore(sqlite: Database) {
  const insertRow = sqlite.query(`INSERT OR IGNORE INTO check_results (${ROW}) VALUES (?, ?, ?, ?, ?, ?, ?)`)
  const packOf = sqlite.query<{ data: Uint8Array }, [number, number, number]>('SELECT data FROM check_packs WHERE check_seq = ? AND hour = ? AND place = ?')
  const savePack = sqlite.query(
    `INSERT INTO check_packs (check_seq, hour, place, n, ok, data) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (check_seq, hour, place) DO UPDATE SET n = excluded.n, ok = excluded.ok, data = excluded.data`,
  )
  const rowsIn = sqlite.query<ResultRow, [number, number, number, number]>(
    `SELECT ${ROW} FROM check_results WHERE check_seq = ?1 AND ts >= ?2 AND ts < ?3 AND (?4 < 0 OR place = ?4)`,
  )
  const packsIn = sqlite.query<{ place: number; hour: number; data: Uint8Array }, [number, number, number, number]>(
    'SELECT place, hour, data FROM check_packs WHERE check_seq = ?1 AND hour >= ?2 AND hour <= ?3 AND (?4 < 0 OR place = ?4)',
  )
  const rowCount = sqlite.query<{ total: number; ok: number | null }, [number, number]>(
    'SELECT count(*) AS total, sum(ok) AS ok FROM check_results WHERE check_seq = ? AND ts >= ?',
  )
  const packCount = sqlite.query<{ total: number | null; ok: number | null }, [number, number]>(
    'SELECT sum(n) AS total, sum(ok) AS ok FROM check_packs WHERE check_seq = ? AND hour >= ?',
  )
  const rowHours = sqlite.query<{ hour: number; n: number }, [number, number]>(
    `SELECT ts / ${HOUR_MS} AS hour, count(*) AS n FROM check_results WHERE check_seq = ?1 AND (?2 < 0 OR place = ?2) GROUP BY hour`,
  )
  const packHours = sqlite.query<{ hour: number; n: number }, [number, number]>(
    'SELECT hour, sum(n) AS n FROM check_packs WHERE check_seq = ?1 AND (?2 < 0 OR place = ?2) GROUP BY hour',
  )
  const lastOkRow = sqlite.query<{ ts: number | null }, [number]>('SELECT max(ts) AS ts FROM check_results WHERE check_seq = ? AND ok = 1')
  const lastOkHour = sqlite.query<{ hour: number | null }, [number]>('SELECT max(hour) AS hour FROM check_packs WHERE check_seq = ? AND ok > 0')
  const unpacked = sqlite.query<{ check_seq: number; place: number; hour: number }, [number, number]>(
    `SELECT DISTINCT check_seq, place, ts / ${HOUR_MS} AS hour FROM check_results WHERE ts < ? LIMIT ?`,
  )
  const dropRows = sqlite.query('DELETE FROM check_results WHERE check_seq = ? AND ts >= ? AND ts < ? AND place = ?')

  const unpack = (seq: number, p: { place: number; hour: number; data: Uint8Array }): ResultRow[] =>
    decodePack(p.hour, p.data).map((a) => ({ check_seq: seq, place: p.place, ...a }))
  const write = (seq: number, hour: number, place: number, rows: ResultRow[]) => {
    const fit = rows.map(packable)
    savePack.run(seq, hour, place, fit.length, fit.filter((r) => r.ok === 1).length, encodePack(hour, fit))
  }

  /** every attempt of a check at `place` from `from` (inclusive) to `to` (exclusive), in no order */
  const attempts = (seq: number, from: number, to: number, place = -1): ResultRow[] => {
    const out = rowsIn.all(seq, from, to, place)
    for (const p of packsIn.all(seq, Math.floor(from / HOUR_MS), Math.floor((to - 1) / HOUR_MS), place))
      for (const r of unpack(seq, p)) if (r.ts >= from && r.ts < to) out.push(r)
    return out
  }

  return {
    attempts,
    /** Stores one attempt; false when this (check, place, time) was stored before (a replay). */
    insert(r: ResultRow): boolean {
      const hour = Math.floor(r.ts / HOUR_MS)
      const packed = packOf.get(r.check_seq, hour, r.place)
      if (!packed) return insertRow.run(r.check_seq, r.place, r.ts, r.ok, r.response_ms, r.status_code, r.error).changes > 0
      const rows = unpack(r.check_seq, { place: r.place, hour, data: packed.data })
      if (rows.some((x) => x.ts === r.ts)) return false
      rows.push(r)
      write(r.check_seq, hour, r.place, rows)
      return true
    },
    /** attempts and successes since `since`: whole packed hours by their counts, the first partial one unpacked */
    count(seq: number, since: number): { total: number; ok: number } {
      const rows = rowCount.get(seq, since)!
      const firstWhole = Math.ceil(since / HOUR_MS)
      const packs = packCount.get(seq, firstWhole)!
      let total = rows.total + (packs.total ?? 0)
      let ok = (rows.ok ?? 0) + (packs.ok ?? 0)
      if (firstWhole * HOUR_MS !== since) {
        const hour = firstWhole - 1
        for (const p of packsIn.all(seq, hour, hour, -1))
          for (const r of unpack(seq, p))
            if (r.ts >= since) {
              total++
              ok += r.ok
            }
      }
      return { total, ok }
    },
    /** the newest successful attempt, or null */
    lastOk(seq: number): number | null {
      const row = lastOkRow.get(seq)?.ts ?? null
      const hour = lastOkHour.get(seq)?.hour ?? null
      if (hour === null || (row !== null && row >= (hour + 1) * HOUR_MS)) return row
      let best = row
      for (const p of packsIn.all(seq, hour, hour, -1)) for (const r of unpack(seq, p)) if (r.ok === 1 && (best === null || r.ts > best)) best = r.ts
      return best
    },
    /**
     * A page of attempts, newest first: the hours are counted from both forms without unpacking
     * any, then only the hours the page falls in are read.
     */
    page(seq: number, place: number, limit: number, offset: number): { rows: ResultRow[]; total: number } {
      const perHour = new Map<number, number>()
      for (const h of [...rowHours.all(seq, place), ...packHours.all(seq, place)]) perHour.set(h.hour, (perHour.get(h.hour) ?? 0) + h.n)
      const hours = [...perHour].sort((a, b) => b[0] - a[0])
      const total = hours.reduce((sum, [, n]) => sum + n, 0)
      let skipped = 0
      let i = 0
      while (i < hours.length && skipped + hours[i]![1] <= offset) skipped += hours[i++]![1]
      let j = i
      let taken = 0
      while (j < hours.length && taken < offset - skipped + limit) taken += hours[j++]![1]
      if (i === j || limit <= 0) return { rows: [], total }
      const newest = hours[i]![0]
      const oldest = hours[j - 1]![0]
      const rows = attempts(seq, oldest * HOUR_MS, (newest + 1) * HOUR_MS, place).sort(newestFirst)
      return { rows: rows.slice(offset - skipped, offset - skipped + limit), total }
    },
    /**
     * Packs up to `max` finished hours (a check at a place) whose attempts are still rows, each
     * hour's packing and the deletion of its rows in one transaction; the number packed.
     */
    packBefore(before: number, max: number): number {
      const groups = unpacked.all(Math.floor(before / HOUR_MS) * HOUR_MS, max)
      sqlite.transaction(() => {
        for (const g of groups) {
          const from = g.hour * HOUR_MS
          const rows = rowsIn.all(g.check_seq, from, from + HOUR_MS, g.place)
          const packed = packOf.get(g.check_seq, g.hour, g.place)
          if (packed) {
            const seen = new Set(rows.map((r) => r.ts))
            rows.push(...unpack(g.check_seq, { place: g.place, hour: g.hour, data: packed.data }).filter((r) => !seen.has(r.ts)))
          }
          write(g.check_seq, g.hour, g.place, rows)
          dropRows.run(g.check_seq, from, from + HOUR_MS, g.place)
        }
      })()
      return groups.length
    },
    /** attempts older than `cutoff`, in both forms (a packed hour goes once all of it is older) */
    prune(cutoff: number): number {
      const rows = sqlite.query('DELETE FROM check_results WHERE ts < ?').run(cutoff).changes
      return rows + sqlite.query('DELETE FROM check_packs WHERE hour < ?').run(Math.floor(cutoff / HOUR_MS)).changes
    },
    drop(seq: number) {
      sqlite.query('DELETE FROM check_results WHERE check_seq = ?').run(seq)
      sqlite.query('DELETE FROM check_packs WHERE check_seq = ?').run(seq)
    },
  }
}

export type RawStore = ReturnType<typeof createRawStore>
