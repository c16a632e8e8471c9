import { barsSvg } from './status-pages.days'
import type { PublicItemState, PublicNote } from './status-pages.public-model'
import { PAGE_STYLE, THEME_SCRIPT } from './status-pages.style'
import { escapeXml as esc, responseChart } from './status-pages.svg'
import { UPTIME_DAYS, type PageData, type PageItem } from './status-pages.view'

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

/** An ISO time as people read it, in UTC, inside a <time> that keeps the exact value. */
const when = (iso: string) => `<time datetime="${esc(iso)}">${esc(iso.slice(0, 16).replace('T', ' '))} UTC</time>`
const stateSpan = (s: PublicItemState) => `<span class="state s-${s}">${STATE_TEXT[s]}</span>`

function itemHtml(item: PageItem): string {
  const meta: string[] = []
  if (item.down_since) meta.push(`Down since ${when(item.down_since)}`)
  if (item.response_ms !== null) meta.push(`Response time ${Math.round(item.response_ms)} ms`)
  let out = `<li class="item"><div class="row"><h3>${esc(item.name)}</h3>${stateSpan(item.state)}</div>`
  if (meta.length) out += `<p class="meta">${meta.join(' · ')}</p>`
  if (item.days) {
    const pct = item.uptime_90d === null ? 'No data' : `${item.uptime_90d.toFixed(2)}% uptime`
    out += barsSvg(item.days, `${item.name}: ${pct} over the last ${UPTIME_DAYS} days, one bar per day`)
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
export function renderPage(view: PageData): string {
  // appended piece by piece: the engine keeps the pieces (the kept bars among them) and copies
  // them once, when the page is hashed, where joins would copy each group's markup again
  let out =
    `<!doctype html><html lang="en" data-theme="${view.theme}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">' +
    `<title>${esc(view.title)} status</title><style>${PAGE_STYLE}</style></head><body>` +
    `<header><div class="wrap"><h1>${esc(view.title)}</h1><button id="theme" type="button" hidden>Switch light or dark</button>` +
    (view.description ? `<p class="desc">${esc(view.description)}</p>` : '') +
    '</div></header><main class="wrap">' +
    `<div class="banner b-${view.status.state}"><p>${esc(view.status.text)}</p></div>` +
    notesSection('active', 'Current notices', view.active_notes)
  for (const [i, g] of view.groups.entries()) {
    out += `<section aria-labelledby="g${i}"><div class="row"><h2 id="g${i}">${esc(g.name)}</h2>${g.items.length ? stateSpan(g.state) : ''}</div>`
    if (g.items.length) {
      out += '<ul class="items">'
      for (const item of g.items) out += itemHtml(item)
      out += '</ul>'
    } else out += '<p class="empty">Nothing to show here yet.</p>'
    out += '</section>'
  }
  return (
    out +
    notesSection('past', 'Past notices', view.past_notes) +
    `</main><footer class="wrap">Updated ${when(view.generated_at)}.</footer>` +
    `<script>${THEME_SCRIPT}</script></body></html>`
  )
}

/** The answer for a slug that names no published page: the same bytes whatever the slug. */
export const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en" data-theme="auto"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<meta name="color-scheme" content="light dark"><title>No status page here</title><style>${PAGE_STYLE}</style></head><body>` +
  '<main class="wrap"><h1>No status page here</h1><p>There is no status page at this address. Check the link you followed.</p></main>' +
  `<script>${THEME_SCRIPT}</script></body></html>`
