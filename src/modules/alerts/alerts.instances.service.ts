import { AppError, notFound } from '../../http/errors'
import { toIso } from '../../lib/clock'
import type { AlertDetail, AlertsQuery, AlertView, HistoryQuery } from './alerts.model'
import type { AlertsDeps } from './alerts.ports'

function dateOf(raw: string | undefined): number | null {
  return raw === undefined ? null : Date.parse(raw)
}

export async function listAlerts(deps: AlertsDeps, clientId: string, q: AlertsQuery) {
  const f = { state: q.state ?? null, deviceId: q.device_id ?? null, ruleId: q.rule_id ?? null, since: dateOf(q.since), until: dateOf(q.until) }
  const rows = await deps.store.alertsPage(clientId, f, q.limit, q.offset)
  return {
    // every change of an alert is written before it is announced: the stored row is the current one
    items: await Promise.all(rows.map((r): Promise<AlertView> => deps.runtime.present(r))),
    limit: q.limit,
    offset: q.offset,
    total: await deps.store.alertsCount(clientId, f),
  }
}

const timelineOf = async (deps: AlertsDeps, clientId: string, alertId: string) =>
  (await deps.store.eventsOf(clientId, alertId)).map((e) => ({ at: toIso(e.at), type: e.type, value: e.value, by: e.by, note: e.note }))

export async function getAlert(deps: AlertsDeps, clientId: string, alertId: string): Promise<AlertDetail> {
  const row = await deps.runtime.current(clientId, alertId)
  if (!row) throw notFound('Alert')
  return { ...(await deps.runtime.present(row)), timeline: await timelineOf(deps, clientId, alertId) }
}

const resolvedAlready = () => new AppError('conflict', 'This alert is resolved: there is nothing left to acknowledge')

export async function acknowledge(deps: AlertsDeps, clientId: string, alertId: string, userId: string, note: string | undefined): Promise<AlertDetail> {
  const row = await deps.runtime.current(clientId, alertId)
  if (!row) throw notFound('Alert')
  if (row.state === 'resolved') throw resolvedAlready()
  const by = deps.users.emailOf(userId) ?? userId
  // resolved meanwhile (on this hub or another): the acknowledgement is refused as above
  if (!(await deps.runtime.acknowledge(clientId, alertId, by, note ?? ''))) throw resolvedAlready()
  return getAlert(deps, clientId, alertId)
}

export async function history(deps: AlertsDeps, clientId: string, q: HistoryQuery) {
  const rows = await deps.store.history(clientId, q.device_id ?? null, q.rule_id ?? null, dateOf(q.since), dateOf(q.until), q.limit)
  const names = new Map<string, { id: string; name: string }>()
  const ref = async (kind: 'r' | 'd', id: string) => {
    const key = kind + id
    let v = names.get(key)
    if (!v) {
      const name = kind === 'r' ? (await deps.runtime.ruleRef(clientId, id)).name : (deps.devices.find(clientId, id)?.name ?? id)
      names.set(key, (v = { id, name }))
    }
    return v
  }
  const items = []
  for (const e of rows) {
    items.push({
      at: toIso(e.at),
      type: e.type,
      value: e.value,
      by: e.by,
      note: e.note,
      alert_id: e.alert_id,
      rule: await ref('r', e.rule_id),
      device: await ref('d', e.device_id),
      series: e.series,
    })
  }
  return { items }
}

/** Firing alerts per device, for the fleet overview. */
export async function firingCounts(deps: Pick<AlertsDeps, 'store'>, clientId: string): Promise<Map<string, number>> {
  return new Map((await deps.store.firingCounts(clientId)).map((r) => [r.device_id, r.n]))
}

/** A deleted device's or check's alerts go with it (alerts name their subject without a foreign key). */
export function forgetSubject(deps: Pick<AlertsDeps, 'store'>, clientId: string, subjectId: string): Promise<void> {
  return deps.store.deleteAlertsOf(clientId, subjectId)
}
