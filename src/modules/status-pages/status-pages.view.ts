import { toIso, type Clock } from '../../lib/clock'
import type { Group } from './status-pages.model'
import type { StatusChecksPort, StatusDevicesPort, StatusDeviceView, StatusPageCheck } from './status-pages.ports'
import type { OverallState, PublicItem, PublicItemState, PublicNote, PublicPage } from './status-pages.public-model'
import type { NoteRow, PageRow, StatusPagesStore } from './status-pages.store'

export interface PublicViewDeps {
  store: StatusPagesStore
  clock: Clock
  checks: StatusChecksPort
  devices: StatusDevicesPort
}

export const UPTIME_DAYS = 90
// hourly points, for every check of the page in one read of the checks' hour summaries, where
// 15-minute points would aggregate every raw attempt of the day for each check on each build
const CHART_HOURS = 24
const HOUR_MS = 3_600_000
const PAST_NOTES_MS = 14 * 86400_000
const MAX_NOTES = 30

const DEVICE_STATE: Record<StatusDeviceView['state'], PublicItemState> = { online: 'up', stale: 'degraded', offline: 'down', never: 'pending' }
const RANK: Record<PublicItemState, number> = { down: 4, degraded: 3, up: 2, pending: 1, paused: 0 }
const NEUTRAL = { check: 'Service', device: 'Server' } as const

/** The worst state among items: down over degraded over up; pending and paused only when nothing else is known. */
export function worstOf(states: PublicItemState[]): PublicItemState {
  let worst: PublicItemState = 'pending'
  for (const s of states) if (RANK[s] > RANK[worst]) worst = s
  return worst
}

/** Percent up over the days with results (from index `from` on), to two decimals; null when no day has any. */
export function uptimePercent(uptime: Float64Array, from = 0): number | null {
  let sum = 0
  let known = 0
  for (let i = Math.max(0, from); i < uptime.length; i++) {
    const u = uptime[i]!
    if (Number.isNaN(u)) continue // a day without results
    sum += u
    known++
  }
  return known ? Math.round((sum / known) * 10_000) / 100 : null
}

/** A check's days as the page shows them: entry i is UTC day `firstDay + i`; uptime NaN where there were no results. */
export interface PageDays {
  /** the check's id: the key its drawn past days are kept under (never shown) */
  id: string
  firstDay: number
  uptime: Float64Array
  down_s: Float64Array
}

/** An item as the render reads it: a PublicItem whose days stay in arrays until they are written out. */
export type PageItem = Omit<PublicItem, 'days'> & { days: PageDays | null }

/** A page as the render reads it; its JSON form is the PublicPage (status-pages.render-json.ts). */
export type PageData = Omit<PublicPage, 'groups'> & { groups: { name: string; state: PublicItemState; items: PageItem[] }[] }

function noteView(row: NoteRow, updates: { state: string; body: string; created_at: number }[]): PublicNote {
  return {
    kind: row.kind,
    title: row.title,
    state: row.state,
    starts_at: toIso(row.starts_at),
    ends_at: row.ends_at === null ? null : toIso(row.ends_at),
    closed_at: row.closed_at === null ? null : toIso(row.closed_at),
    updates: updates.map((u) => ({ state: u.state, body: u.body, at: toIso(u.created_at) })).reverse(),
  }
}

/**
 * A page as the public sees it. Only what is built here reaches the HTML, the JSON and the
 * badges: names by the team's choice (a label, the real name, or a neutral "Service 2"), states,
 * day figures and response times; never ids, hostnames beyond a chosen name, or errors. The
 * checks' figures come in one read per kind of data for the whole page.
 */
export async function publicView(deps: PublicViewDeps, page: PageRow): Promise<PageData> {
  const now = deps.clock.now()
  const groups = JSON.parse(page.groups) as Group[]
  const all = groups.flatMap((g) => g.items)
  const checkIds = all.filter((i) => i.type === 'check').map((i) => i.id)
  const deviceIds = all.filter((i) => i.type === 'device').map((i) => i.id)
  const charted = all.filter((i) => i.type === 'check' && i.show_response_times).map((i) => i.id)
  const [figures, deviceViews, notes] = await Promise.all([
    checkIds.length ? deps.checks.pageChecks(page.client_id, checkIds, { days: UPTIME_DAYS, hours: CHART_HOURS, charted }) : null,
    deviceIds.length ? deps.devices.views(page.client_id, deviceIds) : [],
    deps.store.visibleNotes(page.id, now - PAST_NOTES_MS, MAX_NOTES),
  ])
  const checks = figures?.checks ?? new Map<string, StatusPageCheck>()
  const devices = new Map<string, StatusDeviceView>(deviceViews.map((d) => [d.id, d]))
  const updates = notes.length ? await deps.store.updatesOf(notes.map((n) => n.id)) : []
  const notesOut = notes.map((n) =>
    noteView(
      n,
      updates.filter((u) => u.note_id === n.id),
    ),
  )
  const active = notesOut.filter((n) => n.closed_at === null)
  const past = notesOut.filter((n) => n.closed_at !== null)
  const maintenanceNow = notes.some((n) => n.kind === 'maintenance' && n.state === 'in_progress')

  const counters = { check: 0, device: 0 }
  const states: PublicItemState[] = []
  const groupsOut: PageData['groups'] = groups.map((g) => {
    const items: PageItem[] = []
    for (const item of g.items) {
      counters[item.type]++
      const check = item.type === 'check' ? checks.get(item.id) : undefined
      const device = item.type === 'device' ? devices.get(item.id) : undefined
      if (!check && !device) continue // unknown or gone: left out, never shown as an id
      const ownName = (check?.name ?? device?.name)!
      const name = item.label ?? (item.show_name ? ownName : `${NEUTRAL[item.type]} ${counters[item.type]}`)
      if (check) {
        let times: [number, number | null][] | null = null
        if (item.show_response_times && check.hourly) {
          const hourly = check.hourly
          times = Array.from({ length: hourly.length }, (_, h): [number, number | null] => [
            figures!.firstHourMs + h * HOUR_MS,
            Number.isNaN(hourly[h]) ? null : hourly[h]!,
          ])
        }
        items.push({
          key: item.key,
          name,
          type: 'check',
          state: check.state,
          down_since: check.down_since,
          last_checked_at: check.last_checked_at,
          uptime_90d: uptimePercent(check.uptime),
          days: { id: check.id, firstDay: figures!.firstDay, uptime: check.uptime, down_s: check.down_s },
          response_ms: item.show_response_times ? check.response_ms : null,
          response_times: item.show_response_times ? (times ?? []) : null,
        })
      } else {
        items.push({
          key: item.key,
          name,
          type: 'device',
          state: DEVICE_STATE[device!.state],
          down_since: null,
          last_checked_at: null,
          uptime_90d: null,
          days: null,
          response_ms: null,
          response_times: null,
        })
      }
    }
    for (const i of items) states.push(i.state)
    return { name: g.name, state: worstOf(items.map((i) => i.state)), items }
  })

  return {
    title: page.title,
    description: page.description,
    theme: page.theme,
    status: overall(states, maintenanceNow),
    groups: groupsOut,
    active_notes: active,
    past_notes: past,
    generated_at: toIso(now),
  }
}

/** The banner: any item down is an outage (major when half or more are down), else degraded, maintenance, or operational. */
function overall(states: PublicItemState[], maintenanceNow: boolean): { state: OverallState; text: string } {
  const down = states.filter((s) => s === 'down').length
  if (down && down * 2 >= states.length) return { state: 'major_outage', text: 'Major outage' }
  if (down) return { state: 'partial_outage', text: 'Partial outage' }
  if (states.includes('degraded')) return { state: 'degraded', text: 'Degraded performance' }
  if (maintenanceNow) return { state: 'maintenance', text: 'Maintenance in progress' }
  return { state: 'operational', text: 'All systems operational' }
}
