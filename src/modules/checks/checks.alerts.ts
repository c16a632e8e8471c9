import type { Observation } from '../alerts/runtime/alerts.runtime-state'
import type { MetricWords, Selector, SelectorCompiler } from '../alerts/runtime/alerts.selectors'
import type { CheckSettings } from './checks.model'
import type { CheckChange } from './checks.attempt'

/** The observation source of service checks: rules watch `check:<field>`. */
export const CHECK_SOURCE = 'check'

/**
 * What a check's observation carries, each a number a threshold rule compares:
 * - down: 1 while the check is down (every place down), else 0 — "down and up" notices;
 * - degraded: 1 while some places are down and others up;
 * - response_ms: the attempt's response time (successful attempts only);
 * - slow: 1 when the response time is above the check's slow_ms;
 * - cert_days_left: whole days until the certificate expires (https and tls checks);
 * - cert_expiring: 1 when those days are fewer than the check's own cert_warn_days, else 0;
 * - heartbeat_missed: 1 while a heartbeat check is down because a call did not come.
 */
export const CHECK_FIELDS = ['down', 'degraded', 'response_ms', 'slow', 'cert_days_left', 'cert_expiring', 'heartbeat_missed'] as const

const DAY_MS = 86_400_000

const seconds = (ms: number) => `${ms < 10_000 ? (Math.round(ms / 100) / 10).toFixed(1) : Math.round(ms / 1000)} s`
/** "40 s", "12 min", "26 h", "3 days": how long ago, in the unit a person would say */
const ago = (ms: number) =>
  ms < 120_000
    ? `${Math.round(ms / 1000)} s`
    : ms < 7_200_000
      ? `${Math.round(ms / 60_000)} min`
      : ms < 3 * DAY_MS
        ? `${Math.round(ms / 3_600_000)} h`
        : `${Math.round(ms / DAY_MS)} days`
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)
/** why it failed, as the attempt said: "HTTP 503", else its error */
const why = (facts: Record<string, unknown>) => {
  const code = num(facts.status_code)
  if (code !== null) return ` (HTTP ${code})`
  return typeof facts.error === 'string' && facts.error ? ` (${facts.error})` : ''
}
const days = (n: number) => (n === 1 ? '1 day' : n < 0 ? `${-n} days ago` : `${n} days`)
const expiry = (n: number | null) => (n === null ? 'expires soon' : n < 0 ? `expired ${days(n)}` : `expires in ${days(n)}`)

type Say = NonNullable<MetricWords['sentence']>
/** How a check's notice reads, per field: the check's name is the subject of the sentence. */
const SENTENCES: Record<(typeof CHECK_FIELDS)[number], Say> = {
  down: (kind, name, _v, facts) => (kind === 'firing' ? `${name} is down${why(facts)}` : `${name} is up again`),
  degraded: (kind, name, _v, facts) => (kind === 'firing' ? `${name} is down from some places${why(facts)}` : `${name} answers from every place again`),
  response_ms: (kind, name, v) => (kind === 'firing' ? `${name} answers slowly (${v === null ? '—' : seconds(v)})` : `${name} answers in time again`),
  slow: (kind, name, _v, facts) => {
    const ms = num(facts.response_ms)
    return kind === 'firing' ? `${name} answers slowly${ms === null ? '' : ` (${seconds(ms)})`}` : `${name} answers in time again`
  },
  cert_days_left: (kind, name, v) => (kind === 'firing' ? `${name}'s certificate ${expiry(v)}` : `${name}'s certificate was renewed`),
  cert_expiring: (kind, name, _v, facts) =>
    kind === 'firing' ? `${name}'s certificate ${expiry(num(facts.cert_days_left))}` : `${name}'s certificate was renewed`,
  heartbeat_missed: (kind, name, _v, facts) => {
    if (kind === 'resolved') return `${name} heartbeat called again`
    const last = num(facts.last_call_ago_ms)
    return `${name} heartbeat missed (${last === null ? 'no call on record' : `last call ${ago(last)} ago`})`
  },
}
const LABELS: Record<(typeof CHECK_FIELDS)[number], [string, string]> = {
  down: ['Check down', ''],
  degraded: ['Check down from some places', ''],
  response_ms: ['Response time', ' ms'],
  slow: ['Slow answers', ''],
  cert_days_left: ['Certificate days left', ' days'],
  cert_expiring: ['Certificate expiring', ''],
  heartbeat_missed: ['Heartbeat missed', ''],
}
/** an attempt's error as a notice quotes it: bounded, one line */
const ERROR_MAX = 200

/** `check:<field>` as a selector on the check source; anything else goes to the next compiler. */
export function checkSelectors(next: SelectorCompiler): SelectorCompiler {
  return (metric) => {
    if (!metric.startsWith(`${CHECK_SOURCE}:`)) return next(metric)
    const field = metric.slice(CHECK_SOURCE.length + 1)
    if (!(CHECK_FIELDS as readonly string[]).includes(field)) return { error: `a check metric is check:<field>, the field one of ${CHECK_FIELDS.join(', ')}` }
    const read = (values: Record<string, unknown>) => {
      const v = values[field]
      return typeof v === 'number' && Number.isFinite(v) ? v : null
    }
    const f = field as (typeof CHECK_FIELDS)[number]
    const words = (): MetricWords => ({ label: LABELS[f][0], unit: LABELS[f][1], sentence: SENTENCES[f] })
    const selector: Selector = { metric, source: CHECK_SOURCE, wildcard: false, read, each: () => [], words }
    return selector
  }
}

/**
 * A recorded attempt as an observation of the check (its id is the alert's subject), or null
 * when no notice may come of it: the check depends on a device that is offline, whose own
 * offline alert is the one notice (not two). Its alert then fires, if the check is still down,
 * once the device reports again.
 */
/** whether the change is a heartbeat's missed deadline (its notice says when the last call came) */
export const missedHeartbeat = (change: CheckChange) =>
  change.check.kind === 'heartbeat' && change.to === 'down' && (change.attempt.error ?? '').startsWith('heartbeat missed')

export function checkObservation(
  change: CheckChange,
  now: number,
  dependencyOffline: (clientId: string, deviceId: string) => boolean,
  /** when a heartbeat check last had a successful call (its raw results: 48 h), for "last call 26 h ago"; read by the caller for a missed heartbeat */
  lastCallAt: number | null = null,
): Observation | null {
  const { check, attempt } = change
  if (check.depends_on_device_id && dependencyOffline(check.client_id, check.depends_on_device_id)) return null
  const settings = JSON.parse(check.settings) as CheckSettings
  const values: Record<string, unknown> = {
    down: change.to === 'down' ? 1 : 0,
    degraded: change.to === 'degraded' ? 1 : 0,
  }
  // the facts a notice quotes ("shop is down (HTTP 503)"); the rules read only the numbers above
  if (!attempt.ok) {
    if (attempt.status_code !== null) values.status_code = attempt.status_code
    if (attempt.error) values.error = attempt.error.replace(/\s+/g, ' ').slice(0, ERROR_MAX)
  }
  if (attempt.ok && attempt.response_ms !== null) {
    values.response_ms = attempt.response_ms
    if (settings.slow_ms !== undefined) values.slow = attempt.response_ms > settings.slow_ms ? 1 : 0
  }
  const certAt = attempt.cert_expires_at ?? check.cert_expires_at
  if (certAt !== null) {
    values.cert_days_left = Math.floor((certAt - now) / DAY_MS)
    if (settings.cert_warn_days !== undefined) values.cert_expiring = (values.cert_days_left as number) < settings.cert_warn_days ? 1 : 0
  }
  if (check.kind === 'heartbeat') {
    values.heartbeat_missed = missedHeartbeat(change) ? 1 : 0
    const last = values.heartbeat_missed ? lastCallAt : null
    if (last !== null) values.last_call_ago_ms = Math.max(0, now - last)
  }
  // a heartbeat's miss is stamped at its deadline, which may be past the runtime's staleness window: it is news now
  return { clientId: check.client_id, deviceId: check.id, source: CHECK_SOURCE, ts: check.kind === 'heartbeat' ? now : attempt.ts, values }
}
