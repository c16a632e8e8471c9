import { toIso } from '../../lib/clock'
import type { ChecksDeps } from './checks.service'
import { DAY_MS, HOUR_MS } from './checks.summaries'
import { stateOf } from './checks.views'

export interface StatusCheckView {
  id: string
  name: string
  kind: string
  state: 'up' | 'down' | 'degraded' | 'paused' | 'pending'
  last_checked_at: string | null
  response_ms: number | null
}

/** What the public status pages read of checks (their module declares the need; this answers it). */
export interface StatusChecksPort {
  /** the client's checks among ids (others ignored), in the given order */
  views(clientId: string, ids: string[]): StatusCheckView[]
  /** one entry per UTC day, oldest first, for the last `days` days; uptime null where no data */
  uptimeByDay(clientId: string, checkId: string, days: number): { day: string; uptime: number | null; down_s: number }[]
  /** response times over the last `hours` at a fitted resolution: [epoch ms, ms | null] */
  responseTimes(clientId: string, checkId: string, hours: number): [number, number | null][]
  /** down periods since `sinceMs`, newest first */
  incidents(clientId: string, checkId: string, sinceMs: number): { started_at: string; ended_at: string | null; cause: string | null }[]
}

/** Steps of about 100 points: 5 min up to 6 h, 15 min to 24 h, hours to 7 days, then days. */
function stepFor(hours: number): number {
  if (hours <= 6) return 5 * 60_000
  if (hours <= 24) return 15 * 60_000
  if (hours <= 24 * 7) return HOUR_MS
  return DAY_MS
}

export function statusChecksPort(deps: Pick<ChecksDeps, 'checks' | 'results' | 'incidents' | 'clock'>): StatusChecksPort {
  const owned = (clientId: string, checkId: string) => deps.checks.byId(clientId, checkId)
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
      const today = Math.floor(now / DAY_MS)
      const first = today - days + 1
      const byDay = new Map((row ? deps.results.days(row.seq, first) : []).map((d) => [d.day, d]))
      const downs = row ? deps.incidents.since(clientId, checkId, first * DAY_MS) : []
      return Array.from({ length: days }, (_, i) => {
        const day = first + i
        const d = byDay.get(day)
        const start = day * DAY_MS
        const end = Math.min(start + DAY_MS, now)
        const down = downs.reduce((s, inc) => s + Math.max(0, Math.min(end, inc.ended_at ?? now) - Math.max(start, inc.started_at)), 0)
        return {
          day: toIso(start).slice(0, 10),
          uptime: d?.total ? Math.round((d.ok / d.total) * 1e5) / 1e3 : null,
          down_s: Math.round(down / 1000),
        }
      })
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
