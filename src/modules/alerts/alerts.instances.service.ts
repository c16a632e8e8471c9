import { AppError, notFound } from '../../http/errors'
import { toIso } from '../../lib/clock'
import type { AlertDetail, AlertsQuery, AlertView, HistoryQuery } from './alerts.model'
import type { AlertsDeps } from './alerts.ports'

function dateOf(raw: string | undefined): number | null {
  return raw === undefined ? null : Date.parse(raw)
}

export function listAlerts(deps: AlertsDeps, clientId: string, q: AlertsQuery) {
  const f = { state: q.state ?? null, deviceId: q.device_id ?? null, ruleId: q.rule_id ?? null, since: dateOf(q.since), until: dateOf(q.until) }
  const rows = deps.store.alertsPage(clientId, f, q.limit, q.offset)
  return {
    // every change of an alert is written before it is announced: the stored row is the current one
    items: rows.map((r): AlertView => deps.runtime.present(r)),
    limit: q.limit,
    offset: q.offset,
    total: deps.store.alertsCount(clientId, f),
  }
}

const timelineOf = (deps: AlertsDeps, alertId: string) =>
  deps.store.eventsOf(alertId).map((e) => ({ at: toIso(e.at), type: e.type, value: e.value, by: e.by, note: e.note }))

export function getAlert(deps: AlertsDeps, clientId: string, alertId: string): AlertDetail {
  const row = deps.runtime.current(clientId, alertId)
  if (!row) throw notFound('Alert')
  return { ...deps.runtime.present(row), timeline: timelineOf(deps, alertId) }
}

export function acknowledge(deps: AlertsDeps, clientId: string, alertId: string, userId: string, note: string | undefined): AlertDetail {
  const row = deps.runtime.current(clientId, alertId)
  if (!row) throw notFound('Alert')
  if (row.state === 'resolved') throw new AppError('conflict', 'This alert is resolved: there is nothing left to acknowledge')
  const by = deps.users.emailOf(userId) ?? userId
  deps.runtime.acknowledge(clientId, alertId, by, note ?? '')
  return getAlert(deps, clientId, alertId)
}

export function history(deps: AlertsDeps, clientId: string, q: HistoryQuery) {
  const rows = deps.store.history(clientId, q.device_id ?? null, q.rule_id ?? null, dateOf(q.since), dateOf(q.until), q.limit)
  const names = new Map<string, { id: string; name: string }>()
  const ref = (kind: 'r' | 'd', id: string) => {
    const key = kind + id
    let v = names.get(key)
    if (!v) {
      const name = kind === 'r' ? deps.runtime.ruleRef(clientId, id).name : (deps.devices.find(clientId, id)?.name ?? id)
      names.set(key, (v = { id, name }))
    }
    return v
  }
  return {
    items: rows.map((e) => ({
      at: toIso(e.at),
      type: e.type,
      value: e.value,
      by: e.by,
      note: e.note,
      alert_id: e.alert_id,
      rule: ref('r', e.rule_id),
      device: ref('d', e.device_id),
      series: e.series,
    })),
  }
}

/** Firing alerts per device, for the fleet overview. */
export function firingCounts(deps: Pick<AlertsDeps, 'store'>, clientId: string): Map<string, number> {
  return new Map(deps.store.firingCounts(clientId).map((r) => [r.device_id, r.n]))
}

/** A deleted device's or check's alerts go with it (alerts name their subject without a foreign key). */
export function forgetSubject(deps: Pick<AlertsDeps, 'store'>, clientId: string, subjectId: string): void {
  deps.store.deleteAlertsOf(clientId, subjectId)
}
