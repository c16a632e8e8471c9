import type { Channel, KindField } from './types'

type ConfigValue = string | number | boolean | string[] | null

/** A list field's text (one per line or comma separated) as the API's array. */
export const splitList = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean)

/**
 * The `config` to send from the form's values (`read(name)`: the input's text, or null for an
 * unticked checkbox). Creating: every field given (empty ones left to the server's defaults).
 * Editing: only what changed; an emptied optional field is null (removed); a secret left empty
 * keeps its stored value, and `config.<name>.clear` ticked removes it.
 */
export function configFromForm(fields: KindField[], read: (name: string) => string | null, editing: Channel | null): Record<string, ConfigValue> {
  const out: Record<string, ConfigValue> = {}
  for (const f of fields) {
    const raw = read(`config.${f.name}`)
    if (f.secret) {
      const text = (raw ?? '').trim()
      if (text) out[f.name] = text
      else if (editing && f.name in editing.secrets && read(`config.${f.name}.clear`) !== null) out[f.name] = null
      continue
    }
    const value = fieldValue(f, raw)
    const before = editing ? (editing.config[f.name] ?? null) : null
    if (!editing) {
      if (value !== null && !(f.type === 'boolean' && value === (f.default ?? false))) out[f.name] = value
      continue
    }
    if (!same(value, before)) {
      // a checkbox never set stays unset while it shows its default
      if (f.type === 'boolean' && before === null && value === (f.default ?? false)) continue
      out[f.name] = value
    }
  }
  return out
}

function fieldValue(f: KindField, raw: string | null): ConfigValue {
  if (f.type === 'boolean') return raw !== null
  const text = (raw ?? '').trim()
  if (!text) return null
  if (f.type === 'integer') {
    const n = Number(text)
    // a number the server will refuse with its own words (422 naming the field) rather than a silent drop
    return Number.isFinite(n) ? n : text
  }
  if (f.type === 'string_list') return splitList(text)
  return text
}

function same(a: ConfigValue, b: ConfigValue | undefined): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return JSON.stringify(a ?? []) === JSON.stringify(b ?? [])
  return (a ?? null) === (b ?? null)
}

/** What a channel points at, for the list: its URL, topic, chat or recipients (never a secret). */
export function channelTarget(c: Pick<Channel, 'kind' | 'config' | 'secrets'>): string {
  const s = (k: string) => {
    const v = c.config[k]
    return Array.isArray(v) ? v.join(', ') : v === undefined ? '' : String(v)
  }
  switch (c.kind) {
    case 'webhook':
      return s('url')
    case 'email':
      return s('to')
    case 'ntfy':
      return [s('server') || 'https://ntfy.sh', s('topic')].filter(Boolean).join('/')
    case 'gotify':
      return s('server')
    case 'telegram':
      return s('chat_id')
    default: {
      const secret = Object.entries(c.secrets)[0]
      return secret ? `${secret[0].replace(/_/g, ' ')} ${secret[1]}` : ''
    }
  }
}

/** A test send's answer in words: "Delivered (HTTP 200) in 120 ms", "Refused: …". */
export function describeTest(r: { ok: boolean; http_status: number | null; outcome: string; error: string | null; duration_ms: number }): string {
  const status = r.http_status === null ? '' : ` (HTTP ${r.http_status})`
  if (r.ok) return `Delivered${status} in ${r.duration_ms} ms.`
  const what = OUTCOMES[r.outcome] ?? 'Not delivered'
  return `${what}${status}${r.error ? `: ${r.error}` : '.'}`
}

const OUTCOMES: Record<string, string> = {
  http_error: 'The service refused it',
  rate_limited: 'The service asked to slow down',
  refused: 'Vigil may not send there',
  unreachable: 'The service could not be reached',
  redirect: 'The service answered with a redirect',
  invalid: 'The settings are not valid',
  error: 'Sending failed',
}
