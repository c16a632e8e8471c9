import type { Silence } from './types'

/** A datetime-local input's value (the browser's zone) as ISO, or null when empty or unreadable. */
export function localToIso(v: string | null | undefined): string | null {
  if (!v) return null
  const t = new Date(v)
  return Number.isNaN(t.getTime()) ? null : t.toISOString()
}

/** An ISO moment as a datetime-local value in the browser's zone ("2026-05-01T14:00"). */
export function isoToLocal(iso: string | null | undefined, now?: number): string {
  const d = iso ? new Date(iso) : new Date(now ?? Date.now())
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** The silence as the API takes it from the form: one-off (start, end) or recurring (cron, duration, zone). */
export function silenceFromForm(d: FormData): Record<string, unknown> {
  const scopeType = String(d.get('scope') ?? 'all')
  const scope =
    scopeType === 'tag'
      ? { type: 'tag', value: String(d.get('scope_tag') ?? '').trim() }
      : scopeType === 'device'
        ? { type: 'device', value: String(d.get('scope_device') ?? '') }
        : { type: 'all' }
  const common = { comment: String(d.get('comment') ?? '').trim(), scope, rule_id: String(d.get('rule_id') ?? '') || null }
  if (d.get('mode') === 'recurring') {
    const amount = Number(String(d.get('duration_seconds') ?? '').trim() || Number.NaN)
    return {
      ...common,
      cron: String(d.get('cron') ?? '').trim(),
      duration_seconds: Math.round(amount * Number(d.get('duration_seconds_unit') ?? 60)),
      timezone: String(d.get('timezone') ?? '').trim() || null,
      starts_at: null,
      ends_at: null,
    }
  }
  return {
    ...common,
    starts_at: localToIso(String(d.get('starts_at') ?? '')),
    ends_at: localToIso(String(d.get('ends_at') ?? '')),
    cron: null,
    duration_seconds: null,
    timezone: null,
  }
}

/** When a silence holds, in words. */
export function silenceWhen(s: Silence, fmt: (iso: string) => string, dur: (s: number) => string): string {
  if (s.cron) return `${s.cron} (${s.timezone ?? 'UTC'}), for ${dur(s.duration_seconds ?? 0)} each time`
  const from = s.starts_at ? fmt(s.starts_at) : 'now'
  return s.ends_at ? `${from} → ${fmt(s.ends_at)}` : `${from} → until lifted`
}
