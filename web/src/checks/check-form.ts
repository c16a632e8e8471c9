import type { CheckCreate, CheckKind, CheckResponse, CheckSettings } from './types'

/** Which setting inputs each kind's form shows (the server drops any other kind's settings). */
export const KIND_FIELDS: Record<CheckKind, (keyof CheckSettings)[]> = {
  http: [
    'url',
    'method',
    'headers',
    'body',
    'accepted_status',
    'keyword',
    'keyword_absent',
    'json_path',
    'json_expected',
    'follow_redirects',
    'verify_tls',
    'slow_ms',
    'cert_warn_days',
  ],
  tcp: ['host', 'port', 'slow_ms'],
  ping: ['host', 'slow_ms'],
  dns: ['name', 'record_type', 'expected', 'resolver', 'slow_ms'],
  tls: ['host', 'port', 'verify_tls', 'cert_warn_days', 'slow_ms'],
  heartbeat: ['period_s', 'grace_s'],
}

const NUMBERS = new Set<string>(['port', 'slow_ms', 'cert_warn_days', 'period_s', 'grace_s'])
const BOOLEANS = new Set<string>(['keyword_absent', 'follow_redirects', 'verify_tls'])

/**
 * A number input's value for the API: a number when it is one, the text as typed otherwise (so
 * the API's 422 names the field and says what it expects), nothing when empty.
 */
function numberOf(raw: string): number | string | undefined {
  const v = raw.trim()
  if (!v) return undefined
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v
}

const text = (data: FormData, name: string) => {
  const v = data.get(name)
  return typeof v === 'string' ? v : ''
}

/** "Name: value" lines to a header record; a line without a colon keeps its text as the name, which the API refuses on its field. */
export function parseHeaders(raw: string): Record<string, string> | undefined {
  const out: Record<string, string> = {}
  for (const line of raw.split('\n')) {
    if (!line.trim()) continue
    const i = line.indexOf(':')
    if (i < 0) out[line.trim()] = ''
    else out[line.slice(0, i).trim()] = line.slice(i + 1).trim()
  }
  return Object.keys(out).length ? out : undefined
}

export const formatHeaders = (h: Record<string, string> | undefined) =>
  h
    ? Object.entries(h)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')
    : ''

const list = (raw: string, sep: RegExp) =>
  raw
    .split(sep)
    .map((s) => s.trim())
    .filter(Boolean)

/** The kind's settings from the form's inputs (named `settings.<field>`). */
export function settingsFromForm(kind: CheckKind, data: FormData): CheckSettings {
  const out: Record<string, unknown> = {}
  for (const f of KIND_FIELDS[kind]) {
    const name = `settings.${f}`
    if (BOOLEANS.has(f)) {
      out[f] = data.get(name) === 'on'
      continue
    }
    const raw = text(data, name)
    if (NUMBERS.has(f)) out[f] = numberOf(raw)
    else if (f === 'headers') out[f] = parseHeaders(raw)
    else if (f === 'accepted_status') out[f] = raw.trim() ? list(raw, /[\s,]+/) : undefined
    else if (f === 'expected') out[f] = raw.trim() ? list(raw, /\n/) : undefined
    else if (f === 'body') out[f] = raw === '' ? undefined : raw
    else out[f] = raw.trim() === '' ? undefined : raw.trim()
  }
  // keyword_absent means nothing without a keyword, json_expected nothing without a path
  if (kind === 'http' && out.keyword === undefined) delete out.keyword_absent
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out as CheckSettings
}

/** The whole definition from the form: POST /v1/checks (PATCH takes the same without the kind). */
export function checkFromForm(kind: CheckKind, data: FormData): CheckCreate {
  const runOnHub = data.get('run_on_hub') === 'on'
  const devices = data.getAll('device_ids').filter((v): v is string => typeof v === 'string')
  const depends = text(data, 'depends_on_device_id')
  const body: Record<string, unknown> = {
    name: text(data, 'name').trim(),
    kind,
    settings: settingsFromForm(kind, data),
    interval_s: numberOf(text(data, 'interval_s')),
    timeout_ms: numberOf(text(data, 'timeout_ms')),
    down_after: numberOf(text(data, 'down_after')),
    up_after: numberOf(text(data, 'up_after')),
    depends_on_device_id: depends || null,
  }
  if (kind !== 'heartbeat') {
    body.run_on_hub = runOnHub
    body.device_ids = devices
  }
  for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k]
  return body as CheckCreate
}

/**
 * The form input a 422 `loc` belongs to: each setting's input is `settings.<field>`; a header,
 * an accepted status or an expected answer is inside its list's one input; a device in the list
 * of agents points at that list.
 */
export function inputFor(path: (string | number)[]): string | null {
  const [head, field] = path
  if (head === 'settings' && typeof field === 'string') return `settings.${field}`
  if (head === 'device_ids') return 'device_ids'
  return typeof head === 'string' ? head : null
}

/** Blank definitions per kind: what the form starts with. */
export function draftFor(kind: CheckKind): Pick<CheckResponse, 'kind' | 'settings'> {
  const settings: Partial<Record<CheckKind, CheckSettings>> = {
    http: { method: 'GET', accepted_status: ['200-299'], follow_redirects: true, verify_tls: true, cert_warn_days: 14 },
    tls: { port: 443, verify_tls: true, cert_warn_days: 14 },
    dns: { record_type: 'A' },
    heartbeat: { period_s: 86400, grace_s: 3600 },
  }
  return { kind, settings: settings[kind] ?? {} }
}

/** How a cron job or a backup script reports to a heartbeat: on success the URL, on failure the URL with /fail. */
export function heartbeatExamples(url: string): { curl: string; cron: string } {
  const call = (u: string) => `curl -fsS -m 10 --retry 5 -o /dev/null ${u}`
  return {
    curl: call(url),
    cron: `0 3 * * * /usr/local/bin/backup.sh && ${call(url)} || ${call(`${url}/fail`)}`,
  }
}
