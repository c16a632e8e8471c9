import { toIso } from '../../lib/clock'
import type { AlertView, Severity } from './alerts.model'
import type { AlertRow } from './alerts.store'

/** The alert as the API and the events show it. */
export function view(
  a: AlertRow,
  rule: { id: string; name: string; severity: Severity; metric?: string | null },
  device: { id: string; name: string },
  isSilenced: boolean,
): AlertView {
  return {
    id: a.id,
    rule: { id: rule.id, name: rule.name, severity: a.severity as Severity },
    device,
    metric: rule.metric ?? null,
    series: a.series,
    state: a.state as AlertView['state'],
    value: a.value,
    threshold: a.threshold,
    started_at: toIso(a.started_at),
    fired_at: a.fired_at === null ? null : toIso(a.fired_at),
    resolved_at: a.resolved_at === null ? null : toIso(a.resolved_at),
    acknowledged: a.ack_at === null ? null : { by: a.ack_by ?? '', at: toIso(a.ack_at), note: a.ack_note ?? '' },
    silenced: isSilenced,
    suppressed_by: a.suppressed_by,
    context: a.context ? (JSON.parse(a.context) as Record<string, unknown>) : null,
    last_notified_at: a.last_notified_at === null ? null : toIso(a.last_notified_at),
  }
}
