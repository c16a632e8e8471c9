import { dayClass, dayTitle, escapeXml } from './status-pages.svg'
import type { PageDays } from './status-pages.view'

const DAY_MS = 86_400_000
/** the bars' geometry, as uptimeBars draws them */
const BAR_STEP = 10

/** The dates of the days from `firstDay` on: made once a day, not once per check and build. */
let labels: { firstDay: number; list: string[] } = { firstDay: Number.NaN, list: [] }
function labelsFrom(firstDay: number, n: number): string[] {
  if (labels.firstDay !== firstDay || labels.list.length < n) {
    labels = { firstDay, list: Array.from({ length: n }, (_, i) => new Date((firstDay + i) * DAY_MS).toISOString().slice(0, 10)) }
  }
  return labels.list
}

const uptimeOf = (u: number) => (Number.isNaN(u) ? null : u)

const rect = (day: string, i: number, uptime: number | null, down: number) =>
  `<rect class="${dayClass(uptime)}" x="${i * BAR_STEP}" y="0" width="8" height="34" rx="1.5"><title>${escapeXml(dayTitle({ day, uptime, down_s: down }))}</title></rect>`

const dayJson = (day: string, uptime: number | null, down: number) => `{"day":"${day}","uptime":${uptime === null ? 'null' : uptime},"down_s":${down}}`

/** A check's days before today, drawn: the bars' rects and the JSON's day objects. */
interface Kept {
  firstDay: number
  uptime: Float64Array
  down_s: Float64Array
  rects: string
  json: string
}

/**
 * Every day but today is settled (a late agent replay or an incident's end may still move one:
 * the figures are compared before reuse), so each check's past 89 days are drawn once and kept
 * under its id, and a build draws today's bar only. Bounded by bytes, the least recently used
 * out first: 1,000 checks' days are about 15 MB. Shared by every account: one pushed out costs
 * only its next build drawing its 89 bars again.
 */
const KEPT_BYTES = 16 * 1024 * 1024
const kept = new Map<string, Kept>()
let keptBytes = 0

function same(a: Float64Array, b: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (a[i] !== b[i] && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) return false
  return true
}

function pastOf(days: PageDays): Kept {
  const n = days.uptime.length - 1
  const hit = kept.get(days.id)
  if (hit && hit.firstDay === days.firstDay && same(hit.uptime, days.uptime, n) && same(hit.down_s, days.down_s, n)) {
    kept.delete(days.id)
    kept.set(days.id, hit)
    return hit
  }
  if (hit) {
    kept.delete(days.id)
    keptBytes -= hit.rects.length + hit.json.length
  }
  const list = labelsFrom(days.firstDay, days.uptime.length)
  let rects = ''
  let json = ''
  for (let i = 0; i < n; i++) {
    const u = uptimeOf(days.uptime[i]!)
    rects += rect(list[i]!, i, u, days.down_s[i]!)
    json += `${dayJson(list[i]!, u, days.down_s[i]!)},`
  }
  const entry: Kept = { firstDay: days.firstDay, uptime: days.uptime.slice(0, n), down_s: days.down_s.slice(0, n), rects, json }
  kept.set(days.id, entry)
  keptBytes += rects.length + json.length
  for (const [id, e] of kept) {
    if (keptBytes <= KEPT_BYTES || id === days.id) break
    kept.delete(id)
    keptBytes -= e.rects.length + e.json.length
  }
  return entry
}

/** The uptime bars of a check's days: the same markup as uptimeBars(days, label) in status-pages.svg.ts. */
export function barsSvg(days: PageDays, label: string): string {
  const n = days.uptime.length
  const width = n * BAR_STEP - 2
  let rects = ''
  if (n) {
    const last = n - 1
    rects = pastOf(days).rects + rect(labelsFrom(days.firstDay, n)[last]!, last, uptimeOf(days.uptime[last]!), days.down_s[last]!)
  }
  return `<svg class="bars" viewBox="0 0 ${width} 34" preserveAspectRatio="none" role="img" aria-label="${escapeXml(label)}">${rects}</svg>`
}

/** The days as the page's JSON writes them: [{"day","uptime","down_s"}, …]. */
export function daysJson(days: PageDays): string {
  const n = days.uptime.length
  if (!n) return '[]'
  const last = n - 1
  return `[${pastOf(days).json}${dayJson(labelsFrom(days.firstDay, n)[last]!, uptimeOf(days.uptime[last]!), days.down_s[last]!)}]`
}

/** How many checks' past days are kept (a test reads it). */
export const keptDays = () => kept.size
