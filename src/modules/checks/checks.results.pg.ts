import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import { decodePack, encodePack } from './checks.pack'
import type { ResultRow } from './checks.raw'
import {
  BUCKET_BOUNDS,
  type Bucket,
  bucketOfMs,
  DAY_MS,
  HOUR_MS,
  histBytes,
  histOf,
  histPercentiles,
  percentilesOf,
  pct,
  RAW_KEEP_MS,
  type ResultsStore,
} from './checks.summaries'

const HOURS_KEEP_MS = 90 * 86_400_000
const DAYS_KEEP_MS = 400 * 86_400_000
/** bigint parameters cannot be Infinity: "until the end" is the largest safe time */
const END = Number.MAX_SAFE_INTEGER

const resultRow = (r: Raw): ResultRow => ({
  check_seq: num(r.check_seq),
  place: num(r.place),
  ts: num(r.ts),
  ok: num(r.ok),
  response_ms: numOrNull(r.response_ms),
  status_code: numOrNull(r.status_code),
  error: (r.error as string | null) ?? null,
})
const bytes = (v: unknown) => (v === null || v === undefined ? null : new Uint8Array(v as Uint8Array))
const unpack = (seq: number, place: number, hour: number, data: Uint8Array): ResultRow[] => decodePack(hour, data).map((a) => ({ check_seq: seq, place, ...a }))
const whole = (v: number | null) => (v === null ? null : Math.max(0, Math.round(v)))
const packable = (r: ResultRow): ResultRow => ({
  ...r,
  ts: Math.round(r.ts),
  ok: r.ok === 1 ? 1 : 0,
  response_ms: whole(r.response_ms),
  status_code: whole(r.status_code),
})
const newestFirst = (a: ResultRow, b: ResultRow) => b.ts - a.ts || a.place - b.place

async function writePack(tx: SQL, seq: number, hour: number, place: number, rows: ResultRow[]) {
  const fit = rows.map(packable)
  const ok = fit.filter((r) => r.ok === 1).length
  await tx`INSERT INTO check_packs (check_seq, hour, place, n, ok, data) VALUES (${seq}, ${hour}, ${place}, ${fit.length}, ${ok}, ${encodePack(hour, fit)})
    ON CONFLICT (check_seq, hour, place) DO UPDATE SET n = EXCLUDED.n, ok = EXCLUDED.ok, data = EXCLUDED.data`
}

/**
 * Stores one attempt in every tier, inside the caller's transaction (the checks store's, which
 * holds the check's row lock, so the packed hour and the day's histogram are read and written
 * by one hub at a time); false when this (check, place, time) was stored before (a replay).
 */
export async function recordResultPg(tx: SQL, r: ResultRow): Promise<boolean> {
  const hour = Math.floor(r.ts / HOUR_MS)
  const [packed]: Raw[] = await tx`SELECT data FROM check_packs WHERE check_seq = ${r.check_seq} AND hour = ${hour} AND place = ${r.place}`
  if (!packed) {
    const stored: Raw[] = await tx`INSERT INTO check_results (check_seq, place, ts, ok, response_ms, status_code, error)
      VALUES (${r.check_seq}, ${r.place}, ${r.ts}, ${r.ok}, ${r.response_ms}, ${r.status_code}, ${r.error}) ON CONFLICT DO NOTHING RETURNING ts`
    if (!stored.length) return false
  } else {
    const rows = unpack(r.check_seq, r.place, hour, bytes(packed.data)!)
    if (rows.some((x) => x.ts === r.ts)) return false
    rows.push(r)
    await writePack(tx, r.check_seq, hour, r.place, rows)
  }
  const ms = r.ok && r.response_ms !== null ? Math.round(r.response_ms) : null
  const n = ms === null ? 0 : 1
  await tx`INSERT INTO check_hours (check_seq, hour, total, ok, sum_ms, n_ms, max_ms) VALUES (${r.check_seq}, ${hour}, 1, ${r.ok}, ${ms ?? 0}, ${n}, ${ms})
    ON CONFLICT (check_seq, hour) DO UPDATE SET total = check_hours.total + 1, ok = check_hours.ok + EXCLUDED.ok,
      sum_ms = check_hours.sum_ms + EXCLUDED.sum_ms, n_ms = check_hours.n_ms + EXCLUDED.n_ms, max_ms = GREATEST(check_hours.max_ms, EXCLUDED.max_ms)`
  const day = Math.floor(r.ts / DAY_MS)
  const [d]: Raw[] = await tx`SELECT hist FROM check_days WHERE check_seq = ${r.check_seq} AND day = ${day}`
  const hist = histOf(bytes(d?.hist))
  if (ms !== null) hist[bucketOfMs(ms)]!++
  await tx`INSERT INTO check_days (check_seq, day, total, ok, sum_ms, n_ms, max_ms, hist) VALUES (${r.check_seq}, ${day}, 1, ${r.ok}, ${ms ?? 0}, ${n}, ${ms}, ${histBytes(hist)})
    ON CONFLICT (check_seq, day) DO UPDATE SET total = check_days.total + 1, ok = check_days.ok + EXCLUDED.ok,
      sum_ms = check_days.sum_ms + EXCLUDED.sum_ms, n_ms = check_days.n_ms + EXCLUDED.n_ms, max_ms = GREATEST(check_days.max_ms, EXCLUDED.max_ms), hist = EXCLUDED.hist`
  return true
}

/** a removed check's results, summaries and places, inside the caller's transaction */
export async function dropResultsPg(tx: SQL, seq: number) {
  for (const table of ['check_results', 'check_packs', 'check_hours', 'check_days', 'check_places'])
    await tx.unsafe(`DELETE FROM ${table} WHERE check_seq = $1`, [seq])
}

/** The results tiers on PostgreSQL: the same answers as on SQLite (checks.store.contract.test.ts). */
export function createResultsStorePg(sql: SQL): ResultsStore {
  const packsIn = async (seq: number, fromHour: number, toHour: number, place: number) =>
    (await sql`SELECT place, hour, data FROM check_packs WHERE check_seq = ${seq} AND hour >= ${fromHour} AND hour <= ${toHour}
      AND (${place}::bigint < 0 OR place = ${place})`) as Raw[]
  /** every attempt of a check at `place` from `from` (inclusive) to `to` (exclusive), in no order */
  const attempts = async (seq: number, from: number, to: number, place = -1): Promise<ResultRow[]> => {
    const end = Math.min(to, END)
    const rows: Raw[] = await sql`SELECT check_seq, place, ts, ok, response_ms, status_code, error FROM check_results
      WHERE check_seq = ${seq} AND ts >= ${from} AND ts < ${end} AND (${place}::bigint < 0 OR place = ${place})`
    const out = rows.map(resultRow)
    for (const p of await packsIn(seq, Math.floor(from / HOUR_MS), Math.floor((end - 1) / HOUR_MS), place))
      for (const r of unpack(seq, num(p.place), num(p.hour), bytes(p.data)!)) if (r.ts >= from && r.ts < end) out.push(r)
    return out
  }
  const count = async (seq: number, since: number) => {
    const [rows]: Raw[] = await sql`SELECT count(*) AS total, sum(ok) AS ok FROM check_results WHERE check_seq = ${seq} AND ts >= ${since}`
    const firstWhole = Math.ceil(since / HOUR_MS)
    const [packs]: Raw[] = await sql`SELECT sum(n) AS total, sum(ok) AS ok FROM check_packs WHERE check_seq = ${seq} AND hour >= ${firstWhole}`
    let total = num(rows!.total) + (numOrNull(packs!.total) ?? 0)
    let ok = (numOrNull(rows!.ok) ?? 0) + (numOrNull(packs!.ok) ?? 0)
    if (firstWhole * HOUR_MS !== since) {
      const hour = firstWhole - 1
      for (const p of await packsIn(seq, hour, hour, -1))
        for (const r of unpack(seq, num(p.place), hour, bytes(p.data)!))
          if (r.ts >= since) {
            total++
            ok += r.ok
          }
    }
    return { total, ok }
  }
  const sumRow = (r: Raw) => ({
    b: num(r.b),
    total: num(r.total),
    ok: num(r.ok),
    sum_ms: numOrNull(r.sum_ms),
    n_ms: num(r.n_ms),
    max_ms: numOrNull(r.max_ms),
  })

  return {
    async lastOk(seq) {
      const [a]: Raw[] = await sql`SELECT max(ts) AS ts FROM check_results WHERE check_seq = ${seq} AND ok = 1`
      const [b]: Raw[] = await sql`SELECT max(hour) AS hour FROM check_packs WHERE check_seq = ${seq} AND ok > 0`
      const row = numOrNull(a!.ts)
      const hour = numOrNull(b!.hour)
      if (hour === null || (row !== null && row >= (hour + 1) * HOUR_MS)) return row
      let best = row
      for (const p of await packsIn(seq, hour, hour, -1))
        for (const r of unpack(seq, num(p.place), hour, bytes(p.data)!)) if (r.ok === 1 && (best === null || r.ts > best)) best = r.ts
      return best
    },
    async uptime(seq, now, spanMs) {
      const since = now - spanMs
      if (spanMs <= RAW_KEEP_MS) {
        const r = await count(seq, since)
        return pct(r.ok, r.total)
      }
      const [r]: Raw[] =
        spanMs <= 31 * DAY_MS
          ? await sql`SELECT sum(total) AS total, sum(ok) AS ok FROM check_hours WHERE check_seq = ${seq} AND hour >= ${Math.floor(since / HOUR_MS)}`
          : await sql`SELECT sum(total) AS total, sum(ok) AS ok FROM check_days WHERE check_seq = ${seq} AND day >= ${Math.floor(since / DAY_MS)}`
      return pct(numOrNull(r?.ok) ?? 0, numOrNull(r?.total) ?? 0)
    },
    async percentiles(seq, now, spanMs) {
      if (spanMs <= RAW_KEEP_MS) {
        const times = (await attempts(seq, now - spanMs, END)).flatMap((r) => (r.ok === 1 && r.response_ms !== null ? [r.response_ms] : []))
        return percentilesOf(times.sort((a, b) => a - b))
      }
      const rows: Raw[] = await sql`SELECT hist, max_ms FROM check_days WHERE check_seq = ${seq} AND day >= ${Math.floor((now - spanMs) / DAY_MS)}`
      const counts = new Array<number>(BUCKET_BOUNDS.length).fill(0)
      let max: number | null = null
      for (const row of rows) {
        for (const [i, c] of histOf(bytes(row.hist)).entries()) counts[i]! += c
        const m = numOrNull(row.max_ms)
        if (m !== null) max = Math.max(max ?? 0, m)
      }
      return histPercentiles(counts, max)
    },
    async buckets(seq, from, stepMs, count) {
      const out = Array.from({ length: count }, (_, i) => ({ t: from + i * stepMs, total: 0, ok: 0, sum_ms: 0, n_ms: 0, max_ms: null as number | null }))
      let rows: { b: number; total: number; ok: number; sum_ms: number | null; n_ms: number; max_ms: number | null }[]
      const now = from + count * stepMs
      if (now - from <= RAW_KEEP_MS && stepMs < HOUR_MS) {
        const byStep = new Map<number, { b: number; total: number; ok: number; sum_ms: number; n_ms: number; max_ms: number | null }>()
        for (const r of await attempts(seq, from, END)) {
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
        rows = [...byStep.values()]
      } else if (stepMs < DAY_MS) {
        const first = Math.floor(from / HOUR_MS)
        const raw: Raw[] = await sql`SELECT (hour - ${first}) / ${stepMs / HOUR_MS} AS b, sum(total) AS total, sum(ok) AS ok, sum(sum_ms) AS sum_ms,
          sum(n_ms) AS n_ms, max(max_ms) AS max_ms FROM check_hours WHERE check_seq = ${seq} AND hour >= ${first} GROUP BY 1`
        rows = raw.map(sumRow)
      } else {
        const first = Math.floor(from / DAY_MS)
        const raw: Raw[] = await sql`SELECT day - ${first} AS b, total, ok, sum_ms, n_ms, max_ms FROM check_days WHERE check_seq = ${seq} AND day >= ${first}`
        rows = raw.map(sumRow)
      }
      for (const r of rows) {
        const slot = out[r.b]
        if (!slot) continue
        Object.assign(slot, { total: r.total, ok: r.ok, sum_ms: r.sum_ms ?? 0, n_ms: r.n_ms, max_ms: r.max_ms })
      }
      return out.map(
        (s): Bucket => ({ t: s.t, avg_ms: s.n_ms ? Math.round(s.sum_ms / s.n_ms) : null, max_ms: s.max_ms, uptime: pct(s.ok, s.total), total: s.total }),
      )
    },
    async days(seq, firstDay) {
      const rows: Raw[] = await sql`SELECT day, total, ok FROM check_days WHERE check_seq = ${seq} AND day >= ${firstDay} ORDER BY day`
      return rows.map((r) => ({ day: num(r.day), total: num(r.total), ok: num(r.ok) }))
    },
    async page(seq, place, limit, offset) {
      const perHour = new Map<number, number>()
      const hourRows: Raw[] = await sql`SELECT ts / ${HOUR_MS} AS hour, count(*) AS n FROM check_results
        WHERE check_seq = ${seq} AND (${place}::bigint < 0 OR place = ${place}) GROUP BY 1`
      const packRows: Raw[] =
        await sql`SELECT hour, sum(n) AS n FROM check_packs WHERE check_seq = ${seq} AND (${place}::bigint < 0 OR place = ${place}) GROUP BY hour`
      for (const h of [...hourRows, ...packRows]) perHour.set(num(h.hour), (perHour.get(num(h.hour)) ?? 0) + num(h.n))
      const hours = [...perHour].sort((a, b) => b[0] - a[0])
      const total = hours.reduce((sum, [, n]) => sum + n, 0)
      let skipped = 0
      let i = 0
      while (i < hours.length && skipped + hours[i]![1] <= offset) skipped += hours[i++]![1]
      let j = i
      let taken = 0
      while (j < hours.length && taken < offset - skipped + limit) taken += hours[j++]![1]
      if (i === j || limit <= 0) return { rows: [], total }
      const rows = (await attempts(seq, hours[j - 1]![0] * HOUR_MS, (hours[i]![0] + 1) * HOUR_MS, place)).sort(newestFirst)
      return { rows: rows.slice(offset - skipped, offset - skipped + limit), total }
    },
    async packBefore(before, max) {
      const groups: Raw[] = await sql`SELECT DISTINCT check_seq, place, ts / ${HOUR_MS} AS hour FROM check_results
        WHERE ts < ${Math.floor(before / HOUR_MS) * HOUR_MS} LIMIT ${max}`
      for (const g of groups) {
        const seq = num(g.check_seq)
        const place = num(g.place)
        const hour = num(g.hour)
        const from = hour * HOUR_MS
        await sql.begin(async (tx) => {
          // the check's row lock: an attempt recorded meanwhile (a late agent batch) waits, then lands in the pack
          await tx`SELECT seq FROM checks WHERE seq = ${seq} FOR UPDATE`
          const rows = (
            (await tx`SELECT check_seq, place, ts, ok, response_ms, status_code, error FROM check_results
            WHERE check_seq = ${seq} AND ts >= ${from} AND ts < ${from + HOUR_MS} AND place = ${place}`) as Raw[]
          ).map(resultRow)
          const [packed]: Raw[] = await tx`SELECT data FROM check_packs WHERE check_seq = ${seq} AND hour = ${hour} AND place = ${place}`
          if (packed) {
            const seen = new Set(rows.map((r) => r.ts))
            rows.push(...unpack(seq, place, hour, bytes(packed.data)!).filter((r) => !seen.has(r.ts)))
          }
          await writePack(tx, seq, hour, place, rows)
          await tx`DELETE FROM check_results WHERE check_seq = ${seq} AND ts >= ${from} AND ts < ${from + HOUR_MS} AND place = ${place}`
        })
      }
      return groups.length
    },
    pruneRaw: (now) => pruneRaw(sql, now - RAW_KEEP_MS),
    async prune(now) {
      let n = await pruneRaw(sql, now - RAW_KEEP_MS)
      n += (await sql`DELETE FROM check_hours WHERE hour < ${Math.floor((now - HOURS_KEEP_MS) / HOUR_MS)}`).count
      n += (await sql`DELETE FROM check_days WHERE day < ${Math.floor((now - DAYS_KEEP_MS) / DAY_MS)}`).count
      return n
    },
  }
}

async function pruneRaw(sql: SQL, cutoff: number): Promise<number> {
  const rows = (await sql`DELETE FROM check_results WHERE ts < ${cutoff}`).count
  return rows + (await sql`DELETE FROM check_packs WHERE hour < ${Math.floor(cutoff / HOUR_MS)}`).count
}
