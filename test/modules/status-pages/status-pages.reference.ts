/**
 * The status page's build as it was before it read its checks' figures into arrays and kept
 * each check's past days drawn: a frozen copy, for the test that the faster build answers the
 * same bytes for the same data (status-pages.equality.test.ts). It reads the fake checks port's
 * per-check lists (uptime 0..1).
 */
import { toIso, type Clock } from '../../../src/lib/clock'
import type { Group } from '../../../src/modules/status-pages/status-pages.model'
import type { StatusCheckView, StatusDevicesPort, StatusDeviceView } from '../../../src/modules/status-pages/status-pages.ports'
import type {
  OverallState,
  PublicGroup,
  PublicItem,
  PublicItemState,
  PublicNote,
  PublicPage,
} from '../../../src/modules/status-pages/status-pages.public-model'
import type { NoteRow, PageRow, StatusPagesStore } from '../../../src/modules/status-pages/status-pages.store'
import { PAGE_STYLE, THEME_SCRIPT } from '../../../src/modules/status-pages/status-pages.style'
import { escapeXml as esc, responseChart, uptimeBars } from '../../../src/modules/status-pages/status-pages.svg'

type Day = { day: string; uptime: number | null; down_s: number }

export interface ReferenceDeps {
  store: StatusPagesStore
  clock: Clock
  checks: {
    views(clientId: string, ids: string[]): Promise<StatusCheckView[]>
    uptimeByDays(clientId: string, ids: string[], days: number): Map<string, Day[]>
    hourlyResponseTimes(clientId: string, ids: string[], hours: number): Map<string, [number, number | null][]>
    incidents(clientId: string, checkId: string, sinceMs: number): Promise<{ started_at: string; ended_at: string | null }[]>
  }
  devices: StatusDevicesPort
}

const UPTIME_DAYS = 90
const CHART_HOURS = 24
// hourly points, for every check of the page in one read of the checks' hour summaries, where
// 15-minute points would aggregate every raw attempt of the day for each check on each build
const PAST_NOTES_MS = 14 * 86400_000
const MAX_NOTES = 30

const DEVICE_STATE: Record<StatusDeviceView['state'], PublicItemState> = { online: 'up', stale: 'degraded', offline: 'down', never: 'pending' }
const RANK: Record<PublicItemState, number> = { down: 4, degraded: 3, up: 2, pending: 1, paused: 0 }
const NEUTRAL = { check: 'Service', device: 'Server' } as const

/** The worst state among items: down over degraded over up; pending and paused only when nothing else is known. */
function worstOf(states: PublicItemState[]): PublicItemState {
  let worst: PublicItemState = 'pending'
  for (const s of states) if (RANK[s] > RANK[worst]) worst = s
  return worst
}

/** Percent up over the days with results, to two decimals; null when no day has any. */
function uptimePercent(days: { uptime: number | null }[]): number | null {
  const known = days.filter((d) => d.uptime !== null)
  if (!known.length) return null
  return Math.round((known.reduce((s, d) => s + d.uptime!, 0) / known.length) * 10_000) / 100
}

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
 * day figures and response times; never ids, hostnames beyond a chosen name, or errors.
 */
export async function referenceView(deps: ReferenceDeps, page: PageRow): Promise<PublicPage> {
  const now = deps.clock.now()
  const groups = JSON.parse(page.groups) as Group[]
  const all = groups.flatMap((g) => g.items)
  const checkIds = all.filter((i) => i.type === 'check').map((i) => i.id)
  const deviceIds = all.filter((i) => i.type === 'device').map((i) => i.id)
  const checks = new Map<string, StatusCheckView>(checkIds.length ? (await deps.checks.views(page.client_id, checkIds)).map((c) => [c.id, c]) : [])
  const dayLists = checks.size ? deps.checks.uptimeByDays(page.client_id, [...checks.keys()], UPTIME_DAYS) : new Map<string, never[]>()
  const charted = all.filter((i) => i.type === 'check' && i.show_response_times && checks.has(i.id)).map((i) => i.id)
  const charts = charted.length ? deps.checks.hourlyResponseTimes(page.client_id, charted, CHART_HOURS) : new Map<string, never[]>()
  const devices = new Map<string, StatusDeviceView>(deviceIds.length ? (await deps.devices.views(page.client_id, deviceIds)).map((d) => [d.id, d]) : [])

  const notes = await deps.store.visibleNotes(page.id, now - PAST_NOTES_MS, MAX_NOTES)
  const updates = await deps.store.updatesOf(notes.map((n) => n.id))
  const notesOut = notes.map((n) =>
    noteView(
      n,
      updates.filter((u) => u.note_id === n.id),
    ),
  )
  const active = notesOut.filter((n) => n.closed_at === null)
  const past = notesOut.filter((n) => n.closed_at !== null)
  const maintenanceNow = notes.some((n) => n.kind === 'maintenance' && n.state === 'in_progress')

  // the open incident of each check that is down (read before the synchronous build below)
  const openSince = new Map<string, string>()
  for (const c of checks.values()) {
    if (c.state !== 'down') continue
    const open = (await deps.checks.incidents(page.client_id, c.id, now - UPTIME_DAYS * 86400_000)).find((i) => !i.ended_at)
    if (open) openSince.set(c.id, open.started_at)
  }
  const counters = { check: 0, device: 0 }
  const groupsOut: PublicGroup[] = groups.map((g) => {
    const items: PublicItem[] = []
    for (const item of g.items) {
      counters[item.type]++
      const check = item.type === 'check' ? checks.get(item.id) : undefined
      const device = item.type === 'device' ? devices.get(item.id) : undefined
      if (!check && !device) continue // unknown or gone: left out, never shown as an id
      const ownName = (check?.name ?? device?.name)!
      const name = item.label ?? (item.show_name ? ownName : `${NEUTRAL[item.type]} ${counters[item.type]}`)
      if (check) {
        const days = dayLists.get(check.id) ?? []
        items.push({
          key: item.key,
          name,
          type: 'check',
          state: check.state,
          down_since: openSince.get(check.id) ?? null,
          last_checked_at: check.last_checked_at,
          uptime_90d: uptimePercent(days),
          days: days.map((d) => ({ day: d.day, uptime: d.uptime, down_s: Math.round(d.down_s) })),
          response_ms: item.show_response_times ? check.response_ms : null,
          response_times: item.show_response_times ? (charts.get(check.id) ?? []) : null,
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
    return { name: g.name, state: worstOf(items.map((i) => i.state)), items }
  })

  return {
    title: page.title,
    description: page.description,
    theme: page.theme,
    status: overall(
      groupsOut.flatMap((g) => g.items.map((i) => i.state)),
      maintenanceNow,
    ),
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

const STATE_TEXT: Record<PublicItemState, string> = { up: 'Operational', down: 'Down', degraded: 'Degraded', paused: 'Paused', pending: 'No data yet' }
const NOTE_STATE: Record<string, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
  scheduled: 'Scheduled',
  in_progress: 'In progress',
  completed: 'Completed',
}

const barsOf = (days: NonNullable<PublicItem['days']>, label: string) => uptimeBars(days, label)

/** An ISO time as people read it, in UTC, inside a <time> that keeps the exact value. */
const when = (iso: string) => `<time datetime="${esc(iso)}">${esc(iso.slice(0, 16).replace('T', ' '))} UTC</time>`
const stateSpan = (s: PublicItemState) => `<span class="state s-${s}">${STATE_TEXT[s]}</span>`

function itemHtml(item: PublicItem): string {
  const meta: string[] = []
  if (item.down_since) meta.push(`Down since ${when(item.down_since)}`)
  if (item.response_ms !== null) meta.push(`Response time ${Math.round(item.response_ms)} ms`)
  let out = `<li class="item"><div class="row"><h3>${esc(item.name)}</h3>${stateSpan(item.state)}</div>`
  if (meta.length) out += `<p class="meta">${meta.join(' · ')}</p>`
  if (item.days) {
    const pct = item.uptime_90d === null ? 'No data' : `${item.uptime_90d.toFixed(2)}% uptime`
    out += barsOf(item.days, `${item.name}: ${pct} over the last ${UPTIME_DAYS} days, one bar per day`)
    out += `<div class="legend" aria-hidden="true"><span>${UPTIME_DAYS} days ago</span><span>${pct}</span><span>Today</span></div>`
  }
  if (item.response_times) {
    const known = item.response_times.map((p) => p[1]).filter((v): v is number => v !== null)
    if (known.length > 1) {
      const sorted = [...known].sort((a, b) => a - b)
      const median = Math.round(sorted[Math.floor(sorted.length / 2)]!)
      const label = `${item.name}: response time over the last 24 hours, median ${median} ms, highest ${Math.round(sorted[sorted.length - 1]!)} ms`
      out += responseChart(item.response_times, label)
      out += `<div class="legend" aria-hidden="true"><span>24 hours ago</span><span>median ${median} ms</span><span>Now</span></div>`
    }
  }
  return `${out}</li>`
}

function noteHtml(note: PublicNote): string {
  const kind = note.kind === 'incident' ? 'Incident' : 'Maintenance'
  const window =
    note.kind === 'maintenance'
      ? `<p class="meta">${when(note.starts_at)}${note.ends_at ? ` to ${when(note.ends_at)}` : ''}</p>`
      : `<p class="meta">Began ${when(note.starts_at)}${note.closed_at ? `, resolved ${when(note.closed_at)}` : ''}</p>`
  const updates = note.updates
    .map((u) => `<li><span class="upd">${esc(NOTE_STATE[u.state] ?? u.state)}</span> · ${when(u.at)}<p class="body">${esc(u.body)}</p></li>`)
    .join('')
  return `<article class="note"><div class="row"><h3>${esc(note.title)}</h3><span>${kind}: ${esc(NOTE_STATE[note.state] ?? note.state)}</span></div>${window}<ol>${updates}</ol></article>`
}

function notesSection(id: string, heading: string, notes: PublicNote[]): string {
  if (!notes.length) return ''
  return `<section aria-labelledby="${id}"><h2 id="${id}">${heading}</h2>${notes.map(noteHtml).join('')}</section>`
}

/**
 * The public page: server-rendered, readable without its script (which only adds the theme
 * toggle), everything inline. Every text that came from the team or another domain is escaped.
 */
export function referenceRender(view: PublicPage): string {
  const groups = view.groups
    .map(
      (g, i) =>
        `<section aria-labelledby="g${i}"><div class="row"><h2 id="g${i}">${esc(g.name)}</h2>${g.items.length ? stateSpan(g.state) : ''}</div>` +
        (g.items.length ? `<ul class="items">${g.items.map(itemHtml).join('')}</ul>` : '<p class="empty">Nothing to show here yet.</p>') +
        '</section>',
    )
    .join('')
  return (
    `<!doctype html><html lang="en" data-theme="${view.theme}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">' +
    `<title>${esc(view.title)} status</title><style>${PAGE_STYLE}</style></head><body>` +
    `<header><div class="wrap"><h1>${esc(view.title)}</h1><button id="theme" type="button" hidden>Switch light or dark</button>` +
    (view.description ? `<p class="desc">${esc(view.description)}</p>` : '') +
    '</div></header><main class="wrap">' +
    `<div class="banner b-${view.status.state}"><p>${esc(view.status.text)}</p></div>` +
    notesSection('active', 'Current notices', view.active_notes) +
    groups +
    notesSection('past', 'Past notices', view.past_notes) +
    `</main><footer class="wrap">Updated ${when(view.generated_at)}.</footer>` +
    `<script>${THEME_SCRIPT}</script></body></html>`
  )
}
