/**
 * What status pages read of other domains, declared here and filled by the composition root.
 * Both ports answer only for the given client's own objects: an id of another account is
 * unknown, and an unknown id is left off the page.
 */

export interface StatusCheckView {
  id: string
  name: string
  kind: string
  state: 'up' | 'down' | 'degraded' | 'paused' | 'pending'
  last_checked_at: string | null
  response_ms: number | null
}

/** The checks domain's figures for a check. */
export interface StatusChecksPort {
  /** the known ones among `ids` (unknown ids are missing from the answer) */
  views(clientId: string, ids: string[]): StatusCheckView[]
  /** the last `days` UTC days, oldest first; uptime in 0..1, null for a day without results */
  uptimeByDay(clientId: string, checkId: string, days: number): { day: string; uptime: number | null; down_s: number }[]
  /** uptimeByDay of several checks in one go (a page's bars in one query), by id; unknown ids are missing */
  uptimeByDays(clientId: string, ids: string[], days: number): Map<string, { day: string; uptime: number | null; down_s: number }[]>
  /** one point an hour over the last `hours` for several checks (a page's charts in one query), by id; unknown ids are missing */
  hourlyResponseTimes(clientId: string, ids: string[], hours: number): Map<string, [number, number | null][]>
  /** [unix ms, response ms] over the last `hours`, oldest first */
  responseTimes(clientId: string, checkId: string, hours: number): [number, number | null][]
  incidents(clientId: string, checkId: string, sinceMs: number): { started_at: string; ended_at: string | null; cause: string | null }[]
}

export interface StatusDeviceView {
  id: string
  /** the name the account gave it, else its hostname */
  name: string
  state: 'online' | 'stale' | 'offline' | 'never'
}

/** The devices domain: names and presence only. */
export interface StatusDevicesPort {
  views(clientId: string, ids: string[]): StatusDeviceView[]
}
