import { AppError } from '../../http/errors'
import { RequestValidationError } from '../../http/input'
import type { ValidationDetail } from '../../http/validation'
import { addressRefusal, describeRefusal, hostRefusal, type OutboundPolicy, type Refusal, type SelfAddresses } from '../../lib/outbound/outbound.policy'
import type { CheckKind, CheckSettings } from './checks.model'
import { parseResolver } from './probes/probe.resolver'

export { parseResolver }

type Field = keyof CheckSettings

/** Which settings each kind reads, and which of them it needs. */
const FIELDS: Record<CheckKind, { required: Field[]; optional: Field[] }> = {
  http: {
    required: ['url'],
    optional: [
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
  },
  tcp: { required: ['host', 'port'], optional: ['slow_ms'] },
  ping: { required: ['host'], optional: ['slow_ms'] },
  dns: { required: ['name'], optional: ['record_type', 'expected', 'resolver', 'slow_ms'] },
  tls: { required: ['host'], optional: ['port', 'verify_tls', 'cert_warn_days', 'slow_ms'] },
  heartbeat: { required: ['period_s'], optional: ['grace_s'] },
}

/** Defaults written into the stored settings, so the agent and the portal see what runs. */
const DEFAULTS: Partial<Record<CheckKind, Partial<CheckSettings>>> = {
  http: { method: 'GET', accepted_status: ['200-299'], follow_redirects: true, verify_tls: true, cert_warn_days: 14 },
  dns: { record_type: 'A' },
  tls: { port: 443, verify_tls: true, cert_warn_days: 14 },
  heartbeat: { grace_s: 60 },
}

/** The kind's own settings with their defaults; a missing required one is a 422 like any schema mismatch. */
export function normalizeSettings(kind: CheckKind, raw: CheckSettings): CheckSettings {
  const { required, optional } = FIELDS[kind]
  const missing: ValidationDetail[] = required
    .filter((f) => raw[f] === undefined)
    .map((f) => ({ loc: ['body', 'settings', f], msg: `Required for a ${kind} check`, type: 'missing' }))
  if (kind === 'http' && raw.json_expected !== undefined && raw.json_path === undefined) {
    missing.push({ loc: ['body', 'settings', 'json_path'], msg: 'json_expected needs json_path', type: 'missing' })
  }
  if (kind === 'dns' && raw.resolver !== undefined && !parseResolver(raw.resolver)) {
    missing.push({ loc: ['body', 'settings', 'resolver'], msg: 'Expected an IP address with an optional :port', type: 'value_error' })
  }
  if (missing.length) throw new RequestValidationError(missing)
  const out: Record<string, unknown> = { ...DEFAULTS[kind] }
  for (const f of [...required, ...optional]) if (raw[f] !== undefined) out[f] = raw[f]
  return out as CheckSettings
}

/** The host a check calls, as written in its settings (null for a heartbeat). */
export function targetHost(kind: CheckKind, s: CheckSettings): string | null {
  if (kind === 'http') {
    try {
      return new URL(s.url!).hostname
    } catch {
      return null
    }
  }
  if (kind === 'dns') return s.resolver ? parseResolver(s.resolver)!.host : null
  return kind === 'heartbeat' ? null : (s.host ?? null)
}

/**
 * What is wrong with an http check's URL itself, wherever the check runs: not http(s), or
 * credentials in it (a password there would be stored and answered as written; headers are sealed
 * and masked).
 */
export function urlProblem(kind: CheckKind, s: CheckSettings): AppError | null {
  if (kind !== 'http') return null
  let u: URL
  try {
    u = new URL(s.url!)
  } catch {
    return new AppError('unsafe_url', 'settings.url must be an absolute http(s) URL', 'settings.url')
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return new AppError('unsafe_url', 'settings.url must use http or https', 'settings.url')
  if (u.username || u.password) return new AppError('unsafe_url', 'settings.url must not carry credentials (use settings.headers)', 'settings.url')
  return null
}

/**
 * Checks the hub runs follow the outbound policy (docs/outbound.md): a target refused by name or
 * address is refused when saved; a name is judged again on every address it resolves to when
 * the check runs. Agent-run checks are judged by urlProblem alone: they reach the agent's own
 * network.
 */
export function policyProblem(kind: CheckKind, s: CheckSettings, policy: OutboundPolicy, self: SelfAddresses, words: (r: Refusal) => string): AppError | null {
  const syntax = urlProblem(kind, s)
  if (syntax) return syntax
  const host = targetHost(kind, s)
  if (host === null) return null
  const param = kind === 'http' ? 'settings.url' : kind === 'dns' ? 'settings.resolver' : 'settings.host'
  const refusal = kind === 'dns' ? addressRefusal(host, policy, self) : hostRefusal(host, policy, self)
  return refusal ? new AppError('unsafe_url', `${param} points at ${words(refusal)}`, param) : null
}

export { describeRefusal }

/** Request headers whose values are credentials: answered masked, kept as stored when sent back masked. */
const SECRET_HEADER = /authorization|cookie|token|secret|key|password|credential/i
const MASK = '••••'

export const isSecretHeader = (name: string) => SECRET_HEADER.test(name)

/** A URL's query parameters that carry credentials: answered masked like credential headers. */
const SECRET_PARAM = /token|key|secret|passw|sig|auth|credential/i

const mask = (v: string) => (v.startsWith(MASK) ? v : `${MASK}${v.length > 12 ? v.slice(-4) : ''}`)

const paramName = (pair: string) => {
  const name = pair.split('=', 1)[0]!
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '))
  } catch {
    return name
  }
}

/** "https://x/hook?token=••••abcd&page=2": credential parameters masked, the rest as written. */
export function maskUrl(url: string): string {
  const q = url.indexOf('?')
  if (q === -1) return url
  const hash = url.indexOf('#', q)
  const query = url.slice(q + 1, hash === -1 ? undefined : hash)
  const masked = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      return eq !== -1 && SECRET_PARAM.test(paramName(pair)) ? `${pair.slice(0, eq + 1)}${mask(pair.slice(eq + 1))}` : pair
    })
    .join('&')
  return `${url.slice(0, q + 1)}${masked}${hash === -1 ? '' : url.slice(hash)}`
}

/**
 * The settings as the API shows them: a credential header's value, the body and a URL's
 * credential parameters as •••• and their last 4 characters (a value already masked stays so).
 */
export function maskSettings(s: CheckSettings): CheckSettings {
  const out: CheckSettings = { ...s }
  if (s.headers) out.headers = Object.fromEntries(Object.entries(s.headers).map(([k, v]) => [k, isSecretHeader(k) ? mask(v) : v]))
  if (s.body) out.body = mask(s.body)
  if (s.url) out.url = maskUrl(s.url)
  return out
}

/** A change sent back with masked values (a credential header, the body, the URL as answered) keeps the stored ones. */
export function unmaskSettings(next: CheckSettings, stored: CheckSettings): CheckSettings {
  const out: CheckSettings = { ...next }
  if (next.headers && stored.headers) {
    out.headers = Object.fromEntries(
      Object.entries(next.headers).map(([k, v]) => {
        const old = Object.entries(stored.headers!).find(([name]) => name.toLowerCase() === k.toLowerCase())?.[1]
        return [k, isSecretHeader(k) && v.startsWith(MASK) && old !== undefined ? old : v]
      }),
    )
  }
  if (next.body?.startsWith(MASK) && stored.body !== undefined) out.body = stored.body
  if (next.url !== undefined && stored.url !== undefined && next.url !== stored.url && next.url === maskUrl(stored.url)) out.url = stored.url
  return out
}
