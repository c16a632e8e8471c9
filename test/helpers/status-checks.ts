import type { StatusChecksPort, StatusCheckView } from '../../src/modules/status-pages/status-pages.ports'

export interface FakeCheck extends StatusCheckView {
  /** uptime per day, oldest first (90 entries); default: every day 1 */
  days?: (number | null)[]
  /** what the checks module would hold privately: must never reach a public page */
  cause?: string
  incidentStart?: string
}

const DAY = 86400_000

/**
 * The checks module's port as status pages read it, answered from memory: the checks it was
 * given (for one client), 90 days of uptime, a response time every 5 minutes. Until the
 * checks module is merged, tests and the bench fill the port with this.
 */
export function fakeChecksPort(clientId: string, checks: FakeCheck[], now: () => number): StatusChecksPort & { calls: number } {
  const byId = new Map(checks.map((c) => [c.id, c]))
  const mine = (cid: string, id: string) => (cid === clientId ? byId.get(id) : undefined)
  const port = {
    calls: 0,
    views(cid: string, ids: string[]) {
      port.calls++
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
      return new Map(ids.flatMap((id) => (mine(cid, id) ? [[id, port.uptimeByDay(cid, id, days)] as const] : [])))
    },
    hourlyResponseTimes(cid: string, ids: string[], hours: number) {
      return new Map(ids.flatMap((id) => (mine(cid, id) ? [[id, port.responseTimes(cid, id, hours)] as const] : [])))
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
  return port
}
