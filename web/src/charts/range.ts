/**
 * The device page's time window: a range ending now (`?range=6h`) or a zoom between two instants
 * (`?from=…&to=…`, unix seconds). Both live in the URL so a reload or a shared link shows the same.
 */
export const RANGES = {
  '1h': 3600,
  '6h': 6 * 3600,
  '24h': 24 * 3600,
  '7d': 7 * 86400,
  '30d': 30 * 86400,
  '1y': 365 * 86400,
} as const

export type RangeKey = keyof typeof RANGES
export const RANGE_KEYS = Object.keys(RANGES) as RangeKey[]
export const DEFAULT_RANGE: RangeKey = '1h'

export const RANGE_LABELS: Record<RangeKey, string> = {
  '1h': '1 hour',
  '6h': '6 hours',
  '24h': '24 hours',
  '7d': '7 days',
  '30d': '30 days',
  '1y': '1 year',
}

export function parseRange(value: string | null | undefined): RangeKey {
  return value != null && Object.hasOwn(RANGES, value) ? (value as RangeKey) : DEFAULT_RANGE
}

/** A window in unix seconds; `live` when it ends now, so new samples belong at its right edge. */
export interface Window {
  start: number
  end: number
  live: boolean
}

/** The window to show: the zoom when there is a valid one, else the range ending at `nowMs`. */
export function windowFor(range: RangeKey, zoom: [number, number] | null, nowMs: number): Window {
  if (zoom) return { start: zoom[0], end: zoom[1], live: false }
  const end = Math.floor(nowMs / 1000)
  return { start: end - RANGES[range], end, live: true }
}

/** The query the series endpoint takes for a window (ISO 8601 UTC). */
export function windowQuery(w: Window): { start: string; end: string } {
  return { start: new Date(w.start * 1000).toISOString(), end: new Date(w.end * 1000).toISOString() }
}

const SECONDS = /^\d{1,12}$/
/** Earliest instant a zoom may start: nothing is stored before 2000. */
const EPOCH_FLOOR = 946_684_800

/** `from`/`to` from the URL; null unless both are whole seconds, in order, at least a second apart. */
export function parseZoom(from: string | null | undefined, to: string | null | undefined): [number, number] | null {
  if (!from || !to || !SECONDS.test(from) || !SECONDS.test(to)) return null
  const a = Number(from)
  const b = Number(to)
  if (a < EPOCH_FLOOR || b <= a) return null
  return [a, b]
}

/** The URL parameters for a zoom (null clears it). Rounded outward to whole seconds. */
export function zoomParams(zoom: [number, number] | null): { from: string | null; to: string | null } {
  if (!zoom) return { from: null, to: null }
  const a = Math.floor(Math.min(zoom[0], zoom[1]))
  const b = Math.ceil(Math.max(zoom[0], zoom[1]))
  return b > a ? { from: String(a), to: String(b) } : { from: null, to: null }
}
