/** Figures in human units. Every function answers '—' for a missing value (null, undefined, NaN). */

export const DASH = '—'
const missing = (n: number | null | undefined): n is null | undefined => n === null || n === undefined || Number.isNaN(n)

/**
 * Intl formatters are made once and reused: `toLocaleString` with options builds a new one on
 * every call, which a page of hundreds of figures pays for on every render.
 */
const numberFormats = new Map<number, Intl.NumberFormat>()
const fractionDigits = (n: number, max: number) => {
  let f = numberFormats.get(max)
  if (!f) numberFormats.set(max, (f = new Intl.NumberFormat(undefined, { maximumFractionDigits: max, minimumFractionDigits: 0 })))
  return f.format(n)
}
let zone: string | null = null
let dateTimeFormat: Intl.DateTimeFormat | null = null
let zoneNameFormat: Intl.DateTimeFormat | null = null

/** Up to 3 significant digits, no trailing zeros beyond what the size needs: 1.23, 12.3, 123. */
function short(n: number): string {
  const abs = Math.abs(n)
  return fractionDigits(n, abs >= 100 ? 0 : abs >= 10 ? 1 : 2)
}

const BINARY = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']

/** Binary units: 1536 → "1.5 KiB". */
export function bytes(n: number | null | undefined): string {
  if (missing(n)) return DASH
  let v = n
  let i = 0
  while (Math.abs(v) >= 1024 && i < BINARY.length - 1) {
    v /= 1024
    i++
  }
  return `${i === 0 ? Math.round(v) : short(v)} ${BINARY[i]}`
}

/** Bytes per second in binary units: "12 MiB/s". */
export const bytesPerSecond = (n: number | null | undefined) => (missing(n) ? DASH : `${bytes(n)}/s`)

export const percent = (n: number | null | undefined) => (missing(n) ? DASH : `${fractionDigits(n, n < 10 ? 1 : 0)} %`)
export const mbps = (n: number | null | undefined) => (missing(n) ? DASH : `${short(n)} Mbps`)
export const celsius = (n: number | null | undefined) => (missing(n) ? DASH : `${fractionDigits(n, 0)} °C`)
export const ms = (n: number | null | undefined) => (missing(n) ? DASH : `${short(n)} ms`)
export const number = (n: number | null | undefined) => (missing(n) ? DASH : n.toLocaleString())

/** A duration in its largest sensible unit: "45 s", "12 min", "3 h", "5 d". */
export function duration(seconds: number | null | undefined): string {
  if (missing(seconds)) return DASH
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min`
  if (s < 86400) return `${Math.floor(s / 3600)} h`
  return `${Math.floor(s / 86400)} d`
}

/** "12 s ago" (or "in 5 min" for a time ahead); `now` for tests and for ticking displays. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return DASH
  const t = Date.parse(iso)
  if (Number.isNaN(t)) return DASH
  const diff = (now - t) / 1000
  if (Math.abs(diff) < 1) return 'just now'
  return diff >= 0 ? `${duration(diff)} ago` : `in ${duration(-diff)}`
}

/** The browser's time zone, as dateTime's hover text names it. */
export const timeZone = () => (zone ??= Intl.DateTimeFormat().resolvedOptions().timeZone)

/** A time in the browser's zone: "12 Mar 2025, 14:03:07". Pair with `title={zoneTitle(iso)}` to name the zone. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return DASH
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return DASH
  dateTimeFormat ??= new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  })
  return dateTimeFormat.format(d)
}

/** The hover text for a time: the same moment with its zone, and in UTC. */
export function zoneTitle(iso: string | null | undefined): string {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  // the same words as toLocaleString(undefined, {timeZoneName: 'short'}): date, time and the zone's short name
  zoneNameFormat ??= new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  })
  return `${zoneNameFormat.format(d)} (${timeZone()}) · ${d.toISOString().replace('.000', '')}`
}
