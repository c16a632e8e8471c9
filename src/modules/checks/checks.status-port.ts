import { toIso } from '../../lib/clock'
import type { ChecksDeps } from './checks.service'
import { DAY_MS, HOUR_MS } from './checks.summaries'
import { stateOf } from './checks.views'
import type { StatusChecksPort } from '../status-pages/status-pages.ports'

/** Steps of about 100 points: 5 min up to 6 h, 15 min to 24 h, hours to 7 days, then days. */
function stepFor(hours: number): number {
  if (hours <= 6) return 5 * 60_000
  if (hours <= 24) return 15 * 60_000
  if (hours <= 24 * 7) return HOUR_MS
  return DAY_MS
}

/** The dates of `days` UTC days from `first` on (made once per call, not per check). */
const labelsOf = (first: number, days: number) => Array.from({ length: days }, (_, i) => toIso((first + i) * DAY_MS).slice(0, 10))

export function statusChecksPort(deps: Pick<ChecksDeps, 'checks' | 'results' | 'incidents' | 'clock'>): StatusChecksPort {
  const owned = (clientId: string, checkId: string) => deps.checks.byId(clientId, checkId)
  /** one entry per day from the day rows, down time from the check's incidents */
  const dayList = (
    clientId: string,
    checkId: string,
    rows: { day: number; total: number; ok: number }[],
    first: number,
    days: number,
    now: number,
    labels: string[],
  ) => {
    const byDay = new Map(rows.map((d) => [d.day, d]))
    const downs = deps.incidents.since(clientId, checkId, first * DAY_MS)
    return Array.from({ length: days }, (_, i) => {
      const d = byDay.get(first + i)
      const start = (first + i) * DAY_MS
      const end = Math.min(start + DAY_MS, now)
      let down = 0
      for (const inc of downs) down += Math.max(0, Math.min(end, inc.ended_at ?? now) - Math.max(start, inc.started_at))
      return { day: labels[i]!, uptime: d?.total ? Math.round((d.ok / d.total) * 1e5) / 1e3 : null, down_s: Math.round(down / 1000) }
    })
  }
  return {
    views(clientId, ids) {
      return ids.flatMap((id) => {
        const row = owned(clientId, id)
        if (!row) return []
        return [
          {
            id: row.id,
            name: row.name,
            kind: row.kind,
            state: stateOf(row),
            last_checked_at: row.last_checked_at === null ? null : toIso(row.last_checked_at),
            response_ms: row.last_response_ms,
          },
        ]
      })
    },
    uptimeByDay(clientId, checkId, days) {
      const row = owned(clientId, checkId)
      const now = deps.clock.now()
      const first = Math.floor(now / DAY_MS) - days + 1
      const rows = row ? deps.results.days(row.seq, first) : []
      return dayList(clientId, checkId, rows, first, days, now, labelsOf(first, days))
    },
    uptimeByDays(clientId, ids, days) {
      const now = deps.clock.now()
      const first = Math.floor(now / DAY_MS) - days + 1
      const checks = ids.flatMap((id) => owned(clientId, id) ?? [])
      const bySeq = new Map<number, { day: number; total: number; ok: number }[]>(checks.map((c) => [c.seq, []]))
      for (const r of deps.results.daysOfMany(
        checks.map((c) => c.seq),
        first,
      ))
        bySeq.get(r.check_seq)?.push(r)
      const labels = labelsOf(first, days)
      return new Map(checks.map((c) => [c.id, dayList(clientId, c.id, bySeq.get(c.seq)!, first, days, now, labels)]))
    },
    responseTimes(clientId, checkId, hours) {
      const row = owned(clientId, checkId)
      if (!row) return []
      const step = stepFor(hours)
      const now = deps.clock.now()
      const count = Math.max(1, Math.ceil((hours * HOUR_MS) / step))
      const from = now - (now % step) - (count - 1) * step
      return deps.results.buckets(row.seq, from, step, count).map((b) => [b.t, b.avg_ms] as [number, number | null])
    },
    hourlyResponseTimes(clientId, ids, hours) {
      const now = deps.clock.now()
      const firstHour = Math.floor(now / HOUR_MS) - hours + 1
      const checks = ids.flatMap((id) => owned(clientId, id) ?? [])
      const bySeq = new Map(checks.map((c) => [c.seq, Array.from({ length: hours }, (_, i): [number, number | null] => [(firstHour + i) * HOUR_MS, null])]))
      for (const r of deps.results.hoursOfMany(
        checks.map((c) => c.seq),
        firstHour,
      )) {
        const slot = bySeq.get(r.check_seq)?.[r.hour - firstHour]
        if (slot && r.n_ms) slot[1] = Math.round(r.sum_ms / r.n_ms)
      }
      return new Map(checks.map((c) => [c.id, bySeq.get(c.seq)!]))
    },
    incidents(clientId, checkId, sinceMs) {
      if (!owned(clientId, checkId)) return []
      return deps.incidents.since(clientId, checkId, sinceMs).map((r) => ({
        started_at: toIso(r.started_at),
        ended_at: r.ended_at === null ? null : toIso(r.ended_at),
        cause: r.cause,
      }))
    },
  }
}
