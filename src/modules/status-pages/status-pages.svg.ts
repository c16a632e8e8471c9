import type { PublicDay } from './status-pages.public-model'

/** Text for HTML and SVG, attributes included. */
export const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** The class of a day's bar: by how much of it was up. */
export function dayClass(uptime: number | null): string {
  if (uptime === null) return 'd-none'
  if (uptime >= 0.999) return 'd-up'
  if (uptime >= 0.99) return 'd-minor'
  if (uptime >= 0.95) return 'd-major'
  return 'd-down'
}

const duration = (s: number) => (s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min` : s >= 60 ? `${Math.round(s / 60)} min` : `${s} s`)

export function dayTitle(d: PublicDay): string {
  if (d.uptime === null) return `${d.day}: no data`
  const pct = (Math.floor(d.uptime * 10_000) / 100).toFixed(2)
  return d.down_s > 0 ? `${d.day}: ${pct}% up, down ${duration(d.down_s)}` : `${d.day}: ${pct}% up`
}

/**
 * The uptime bars: one rect per day, its date and figure in a <title> (the browser's tooltip).
 * Colours come from the page's stylesheet by class, so both themes apply.
 */
export function uptimeBars(days: PublicDay[], label: string): string {
  const w = 8
  const gap = 2
  const width = days.length * (w + gap) - gap
  const rects = days
    .map(
      (d, i) =>
        `<rect class="${dayClass(d.uptime)}" x="${i * (w + gap)}" y="0" width="${w}" height="34" rx="1.5"><title>${escapeXml(dayTitle(d))}</title></rect>`,
    )
    .join('')
  return `<svg class="bars" viewBox="0 0 ${width} 34" preserveAspectRatio="none" role="img" aria-label="${escapeXml(label)}">${rects}</svg>`
}

/** the most points a chart draws: a phone is ~350 px wide, and each point costs bytes */
const CHART_POINTS = 120

/** At most CHART_POINTS points, each the highest of its span (a spike stays visible); a span without any value stays a gap. */
export function downsample(points: [number, number | null][]): [number, number | null][] {
  if (points.length <= CHART_POINTS) return points
  const out: [number, number | null][] = []
  const per = points.length / CHART_POINTS
  for (let b = 0; b < CHART_POINTS; b++) {
    let top: number | null = null
    const from = Math.floor(b * per)
    const to = Math.floor((b + 1) * per)
    for (let i = from; i < to; i++) {
      const v = points[i]![1]
      if (v !== null && (top === null || v > top)) top = v
    }
    out.push([points[from]![0], top])
  }
  return out
}

/** A line of response times ([unix ms, ms]) in a 600×80 box; gaps where a point is null. */
export function responseChart(all: [number, number | null][], label: string): string {
  const points = downsample(all)
  const known = points.filter((p): p is [number, number] => p[1] !== null)
  if (known.length < 2) return ''
  const t0 = points[0]![0]
  const span = Math.max(1, points[points.length - 1]![0] - t0)
  const max = Math.max(...known.map((p) => p[1]), 1)
  const segments: string[] = []
  let current: string[] = []
  for (const [ts, ms] of points) {
    if (ms === null) {
      if (current.length > 1) segments.push(current.join(' '))
      current = []
      continue
    }
    current.push(`${Math.round(((ts - t0) / span) * 600)},${Math.round(78 - (ms / max) * 74)}`)
  }
  if (current.length > 1) segments.push(current.join(' '))
  const lines = segments.map((s) => `<polyline points="${s}"/>`).join('')
  return `<svg class="chart" viewBox="0 0 600 80" preserveAspectRatio="none" role="img" aria-label="${escapeXml(label)}">${lines}</svg>`
}

/** Verdana 11 px advance widths, roughly, as shields.io measures: narrow, wide and the rest. */
function textWidth(s: string): number {
  let w = 0
  for (const c of s) w += /[ijlt.,:;|!'I1 ]/.test(c) ? 3.8 : /[mwMW@%]/.test(c) ? 10.5 : /[A-Z]/.test(c) ? 7.8 : 6.8
  return Math.ceil(w)
}

export const BADGE_COLOURS = { green: '#2e7d32', yellow: '#9a6700', orange: '#c2410c', red: '#c62828', grey: '#5f6368', blue: '#1565c0' } as const

/** A shields-style flat badge: a grey label and a coloured message, both escaped. */
export function badge(label: string, message: string, colour: keyof typeof BADGE_COLOURS): string {
  const lw = textWidth(label) + 10
  const mw = textWidth(message) + 10
  const w = lw + mw
  const l = escapeXml(label)
  const m = escapeXml(message)
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${l}: ${m}"><title>${l}: ${m}</title>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${mw}" height="20" fill="${BADGE_COLOURS[colour]}"/><rect width="${w}" height="20" fill="url(#s)"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${lw / 2}" y="14">${l}</text><text x="${lw + mw / 2}" y="14">${m}</text></g></svg>`
  )
}
