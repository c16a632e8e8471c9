import type { Observation } from '../alerts/runtime/alerts.runtime-state'
import type { Selector, SelectorCompiler } from '../alerts/runtime/alerts.selectors'
import type { CheckSettings } from './checks.model'
import type { CheckChange } from './checks.record'

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
    const selector: Selector = { metric, source: CHECK_SOURCE, wildcard: false, read, each: () => [] }
    return selector
  }
}

/**
 * A recorded attempt as an observation of the check (its id is the alert's subject), or null
 * when no notice may come of it: the check depends on a device that is offline, whose own
 * offline alert is the one notice (not two). Its alert then fires, if the check is still down,
 * once the device reports again.
 */
export function checkObservation(change: CheckChange, now: number, dependencyOffline: (clientId: string, deviceId: string) => boolean): Observation | null {
  const { check, attempt } = change
  if (check.depends_on_device_id && dependencyOffline(check.client_id, check.depends_on_device_id)) return null
  const settings = JSON.parse(check.settings) as CheckSettings
  const values: Record<string, unknown> = {
    down: change.to === 'down' ? 1 : 0,
    degraded: change.to === 'degraded' ? 1 : 0,
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
  if (check.kind === 'heartbeat') values.heartbeat_missed = change.to === 'down' && (attempt.error ?? '').startsWith('heartbeat missed') ? 1 : 0
  // a heartbeat's miss is stamped at its deadline, which may be past the runtime's staleness window: it is news now
  return { clientId: check.client_id, deviceId: check.id, source: CHECK_SOURCE, ts: check.kind === 'heartbeat' ? now : attempt.ts, values }
}
