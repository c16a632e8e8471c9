import type { StatusChecksPort, StatusCheckView, StatusPageChecks } from '../../src/modules/status-pages/status-pages.ports'

export interface FakeCheck extends StatusCheckView {
  /** uptime per day, oldest first (90 entries); default: every day 1 */
  days?: (number | null)[]
  /** what the checks module would hold privately: must never reach a public page */
  cause?: string
  incidentStart?: string
}

const DAY = 86400_000
const HOUR = 3_600_000

type Day = { day: string; uptime: number | null; down_s: number }

/** The fake with the per-check lists a page used to read (status-pages.reference.ts reads them). */
export type FakeChecksPort = StatusChecksPort & {
  calls: number
  uptimeByDays(cid: string, ids: string[], days: number): Map<string, Day[]>
  hourlyResponseTimes(cid: string, ids: string[], hours: number): Map<string, [number, number | null][]>
}

/** A port whose every call goes to the one `get` answers (the fake is made after the app, which needs a port). */
export function portOf(get: () => StatusChecksPort): StatusChecksPort {
  return {
    views: (...a) => get().views(...a),
    pageChecks: (...a) => get().pageChecks(...a),
    uptimeByDay: (...a) => get().uptimeByDay(...a),
    responseTimes: (...a) => get().responseTimes(...a),
    incidents: (...a) => get().incidents(...a),
  }
}

/**
 * The checks module's port as status pages read it, answered from memory: the checks it was
 * given (for one client), 90 days of uptime, a response time every 5 minutes (every hour for a
 * page's charts). The page tests that need figures of their choosing fill the port with this.
 */
export function fakeChecksPort(clientId: string, checks: FakeCheck[], now: () => number): FakeChecksPort {
  const byId = new Map(checks.map((c) => [c.id, c]))
  const mine = (cid: string, id: string) => (cid === clientId ? byId.get(id) : undefined)
  /** the port's answers as the checks module gives them (promises), from the synchronous lists above */
  const sync = {
    views(cid: string, ids: string[]) {
      return ids.flatMap((id) => {
        const c = mine(cid, id)
        return c ? [{ id: c.id, name: c.name, kind: c.kind, state: c.state, last_checked_at: c.last_checked_at, response_ms: c.response_ms }] : []
      })
    },
    uptimeByDay(cid: string, id: string, days: number) {
      const c = mine(cid, id)
      if (!c) return []
      const today = Math.floor(now() / DAY) * DAY
      return Array.from({ length: days }, (_, i) => {
        const uptime = c.days ? (c.days[c.days.length - days + i] ?? null) : 1
        return {
          day: new Date(today - (days - 1 - i) * DAY).toISOString().slice(0, 10),
          uptime,
          down_s: uptime === null ? 0 : Math.round((1 - uptime) * 86400),
        }
      })
    },
    uptimeByDays(cid: string, ids: string[], days: number) {
      return new Map(ids.flatMap((id) => (mine(cid, id) ? [[id, sync.uptimeByDay(cid, id, days)] as const] : [])))
    },
    /** one point an hour, a gap in the sixth */
    hourlyResponseTimes(cid: string, ids: string[], hours: number) {
      const first = Math.floor(now() / HOUR) - hours + 1
      const points = Array.from({ length: hours }, (_, i) => [(first + i) * HOUR, i === 5 ? null : 80 + ((i * 37) % 50)] as [number, number | null])
      return new Map(ids.flatMap((id) => (mine(cid, id) ? [[id, points] as const] : [])))
    },
    /** the same figures as the lists above, in the page's arrays */
    pageChecks(cid: string, ids: string[], opts: { days: number; hours: number; charted: string[] }): StatusPageChecks {
      const firstDay = Math.floor(now() / DAY) - opts.days + 1
      const firstHour = Math.floor(now() / HOUR) - opts.hours + 1
      const charts = sync.hourlyResponseTimes(cid, opts.charted, opts.hours)
      const out: StatusPageChecks = { firstDay, firstHourMs: firstHour * HOUR, checks: new Map() }
      for (const view of sync.views(cid, ids)) {
        const days = sync.uptimeByDay(cid, view.id, opts.days)
        const chart = charts.get(view.id)
        const open = sync.incidents(cid, view.id).find((i) => !i.ended_at)
        out.checks.set(view.id, {
          ...view,
          uptime: Float64Array.from(days, (d) => d.uptime ?? Number.NaN),
          down_s: Float64Array.from(days, (d) => d.down_s),
          down_since: view.state === 'down' ? (open?.started_at ?? null) : null,
          hourly: chart ? Float64Array.from(chart, (p) => p[1] ?? Number.NaN) : null,
        })
      }
      return out
    },
    responseTimes(cid: string, id: string, hours: number): [number, number | null][] {
      const c = mine(cid, id)
      if (!c) return []
      const n = hours * 12
      const end = now()
      return Array.from({ length: n }, (_, i) => [end - (n - 1 - i) * 300_000, i === 5 ? null : 80 + ((i * 37) % 50)] as [number, number | null])
    },
    incidents(cid: string, id: string) {
      const c = mine(cid, id)
      if (c?.state !== 'down') return []
      return [{ started_at: c.incidentStart ?? new Date(now() - 600_000).toISOString(), ended_at: null, cause: c.cause ?? 'connection refused' }]
    },
  }
  const port: FakeChecksPort = {
    calls: 0,
    views: async (...a) => sync.views(...a),
    uptimeByDay: async (...a) => sync.uptimeByDay(...a),
    uptimeByDays: (...a) => sync.uptimeByDays(...a),
    hourlyResponseTimes: (...a) => sync.hourlyResponseTimes(...a),
    async pageChecks(...a) {
      port.calls++
      return sync.pageChecks(...a)
    },
    responseTimes: async (...a) => sync.responseTimes(...a),
    incidents: async (cid, id) => sync.incidents(cid, id),
  }
  return port
}
