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

/**
 * A check's figures for a public page, in arrays rather than an object a day (a page of 50
 * checks has 4,500 days): entry i is day `firstDay + i`, or hour `firstHourMs + i` hours.
 */
export interface StatusPageCheck extends StatusCheckView {
  /** uptime of each day, 0..1 to five decimals; NaN for a day without results */
  uptime: Float64Array
  /** whole seconds down each day, from the check's incidents */
  down_s: Float64Array
  /** while the check is down: when its open incident began (ISO) */
  down_since: string | null
  /** mean response time (ms, whole) of each hour, NaN where nothing answered; null when not asked for */
  hourly: Float64Array | null
}

export interface StatusPageChecks {
  /** the UTC day number (unix ms / 86,400,000) of the first day */
  firstDay: number
  /** unix ms of the start of the first hour */
  firstHourMs: number
  /** the known ones among the ids asked for, by id (unknown ids and other accounts' are missing) */
  checks: Map<string, StatusPageCheck>
}

/** The checks domain's figures for a check. */
export interface StatusChecksPort {
  /**
   * Everything a page shows of its checks, one read per kind of data for all of them: the
   * last `days` UTC days (oldest first) and, for the ids in `charted`, the last `hours` hours.
   */
  pageChecks(clientId: string, ids: string[], opts: { days: number; hours: number; charted: string[] }): Promise<StatusPageChecks>
  /** the known ones among `ids` (unknown ids are missing from the answer) */
  views(clientId: string, ids: string[]): Promise<StatusCheckView[]>
  /** the last `days` UTC days, oldest first; uptime in percent (0..100), null for a day without results */
  uptimeByDay(clientId: string, checkId: string, days: number): Promise<{ day: string; uptime: number | null; down_s: number }[]>
  /** [unix ms, response ms] over the last `hours`, oldest first */
  responseTimes(clientId: string, checkId: string, hours: number): Promise<[number, number | null][]>
  incidents(clientId: string, checkId: string, sinceMs: number): Promise<{ started_at: string; ended_at: string | null; cause: string | null }[]>
}

export interface StatusDeviceView {
  id: string
  /** the name the account gave it, else its hostname */
  name: string
  state: 'online' | 'stale' | 'offline' | 'never'
}

/** The devices domain: names and presence only. */
export interface StatusDevicesPort {
  views(clientId: string, ids: string[]): Promise<StatusDeviceView[]>
}
