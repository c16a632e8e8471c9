import { toIso } from '../../../lib/clock'
import { newId } from '../../../lib/ids'
import type { Severity } from '../alerts.model'
import type { AlertRow } from '../alerts.store'
import { view } from '../alerts.view'
import { paramsFor, severityFor, type ClientRules, type CompiledRule } from './alerts.compiled-rules'
import type { Decision, SeriesState } from './alerts.evaluator'
import type { NoticeItem } from './alerts.notice-text'
import { deviceRef, deviceState, scoped, seriesOf, type DeviceRuntime, type Runtime } from './alerts.runtime-state'
import { silenced } from './alerts.silence-windows'

/**
 * The changes of an alert's state: started (pending or firing), fired, resolved, cancelled.
 * Every change is written before it is announced on the bus, so a restart keeps firing
 * alerts firing; notices are added to the caller's batch, which dispatch sends.
 */

export type RuleRef = { id: string; name: string; severity: Severity; metric: string | null }

export function event(rt: Runtime, a: AlertRow, type: string, at: number, extra: { value?: number | null; by?: string | null; note?: string | null } = {}) {
  rt.deps.store.addEvent(a.client_id, { alert_id: a.id, at, type, value: extra.value ?? null, by: extra.by ?? null, note: extra.note ?? null })
}

export function isSilenced(rt: Runtime, cr: ClientRules, a: AlertRow): boolean {
  if (cr.silences.length === 0) return false
  const now = rt.deps.clock.now()
  const dev = deviceState(rt, a.client_id, a.device_id)
  return silenced(cr.silences, a.rule_id, scoped(rt, cr, dev, now), now) !== null
}

export function publish(rt: Runtime, type: 'alert.firing' | 'alert.resolved' | 'alert.acknowledged', a: AlertRow, rule: RuleRef, cr: ClientRules | null) {
  const alert = view(a, rule, deviceRef(rt, a.client_id, a.device_id), cr ? isSilenced(rt, cr, a) : false)
  rt.deps.events.publish(a.client_id, type, { alert })
}

/** A resolved alert of the same series whose recovery notice still waits: a relapse reopens it. */
function relapsed(rt: Runtime, rule: CompiledRule, deviceId: string, series: string): AlertRow | null {
  for (const a of rt.state.open.values()) {
    if (a.state === 'resolved' && a.rule_id === rule.id && a.device_id === deviceId && a.series === series && a.recovery_due_at !== null) return a
  }
  return null
}

/** What explains an alert: the observation that crossed (its flat values), the top processes of the newest hardware sample. */
function context(dev: DeviceRuntime, source: string | null, extra: Record<string, unknown> = {}): string {
  const last = source ? dev.last.get(source) : undefined
  const ctx: Record<string, unknown> = { ...extra }
  if (last) {
    const values: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(last.values)) if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') values[k] = v
    ctx.sample = { kind: source, recorded_at: toIso(last.ts), values }
    const top = dev.last.get('hardware')?.values.top_processes
    if (top) ctx.top_processes = top
  }
  return JSON.stringify(ctx)
}

/** Where a series stands, for one change of it. */
export interface At {
  cr: ClientRules
  rule: CompiledRule
  dev: DeviceRuntime
  series: string
}

function start(rt: Runtime, batch: NoticeItem[], { cr, rule, dev, series }: At, to: 'pending' | 'firing', value: number | null, at: number, ctx: string) {
  const { store } = rt.deps
  const again = relapsed(rt, rule, dev.id, series)
  if (again) {
    again.state = 'firing'
    again.resolved_at = null
    again.recovery_due_at = null
    again.value = value
    store.transaction(() => {
      store.updateAlert(again)
      event(rt, again, 'reopened', at, { value, note: 'relapsed before the recovery notice went out' })
    })
    seriesOf(dev, rule.id).set(series, { state: 'firing', alertId: again.id, since: again.started_at, value: value ?? 0, lastAt: at, misses: 0 })
    publish(rt, 'alert.firing', again, rule, cr)
    return
  }
  const a: AlertRow = {
    id: newId('alr'),
    client_id: dev.clientId,
    rule_id: rule.id,
    device_id: dev.id,
    series,
    state: to,
    severity: severityFor(rule, dev.id),
    value,
    threshold: rule.kind === 'threshold' ? paramsFor(rule, dev.id).threshold : rule.kind === 'disk_forecast' ? rule.forecastHours : rule.offlineIntervals,
    started_at: at,
    fired_at: to === 'firing' ? at : null,
    resolved_at: null,
    ack_by: null,
    ack_at: null,
    ack_note: null,
    suppressed_by: null,
    context: to === 'firing' ? ctx : null,
    last_notified_at: null,
    recovery_due_at: null,
  }
  store.transaction(() => {
    store.insertAlert(a)
    event(rt, a, 'pending', at, { value })
    if (to === 'firing') event(rt, a, 'firing', at, { value })
  })
  rt.state.open.set(a.id, a)
  seriesOf(dev, rule.id).set(series, { state: to, alertId: a.id, since: at, value: value ?? 0, lastAt: at, misses: 0 })
  if (to === 'firing') fired(rt, batch, cr, rule, a)
}

function fired(rt: Runtime, batch: NoticeItem[], cr: ClientRules, rule: CompiledRule, a: AlertRow) {
  publish(rt, 'alert.firing', a, rule, cr)
  batch.push({ kind: 'firing', alert: a, rule, device: deviceRef(rt, a.client_id, a.device_id), behind: [] })
}

function fire(rt: Runtime, batch: NoticeItem[], cr: ClientRules, rule: CompiledRule, s: SeriesState, value: number | null, at: number, ctx: string) {
  const a = rt.state.open.get(s.alertId)
  if (!a) return
  a.state = 'firing'
  a.fired_at = at
  a.value = value
  a.context = ctx
  rt.deps.store.transaction(() => {
    rt.deps.store.updateAlert(a)
    event(rt, a, 'firing', at, { value })
  })
  s.state = 'firing'
  fired(rt, batch, cr, rule, a)
}

/** Resolves the series' alert; its recovery notice goes now, later (a delay), or not at all (never notified). */
export function resolve(
  rt: Runtime,
  batch: NoticeItem[],
  { cr, rule, dev, series }: At,
  s: SeriesState,
  value: number | null,
  at: number,
  note: string | null = null,
) {
  const { store } = rt.deps
  dev.series.get(rule.id)?.delete(series)
  const a = rt.state.open.get(s.alertId)
  if (!a) return
  a.state = 'resolved'
  a.resolved_at = at
  if (value !== null) a.value = value
  const notice = rule.notifyRecovery && a.last_notified_at !== null
  a.recovery_due_at = notice && rule.recoveryDelayMs > 0 ? at + rule.recoveryDelayMs : null
  store.transaction(() => {
    store.updateAlert(a)
    event(rt, a, 'resolved', at, { value, note })
  })
  if (a.recovery_due_at === null) rt.state.open.delete(a.id)
  rt.state.groups.drop((i) => i.alert.id === a.id && i.kind !== 'resolved')
  rt.state.held.delete(a.id)
  publish(rt, 'alert.resolved', a, rule, cr)
  if (notice && rule.recoveryDelayMs <= 0) batch.push({ kind: 'resolved', alert: a, rule, device: deviceRef(rt, a.client_id, a.device_id), behind: [] })
}

/** A pending alert that never fired leaves nothing behind. */
export function cancel(rt: Runtime, { rule, dev, series }: At, s: SeriesState) {
  dev.series.get(rule.id)?.delete(series)
  rt.state.open.delete(s.alertId)
  rt.deps.store.deleteAlert(s.alertId)
}

/** Applies the evaluator's decision for one series; `source` names the observation whose values explain a firing. */
export function apply(
  rt: Runtime,
  batch: NoticeItem[],
  at: At,
  s: SeriesState | null,
  d: Decision,
  value: number | null,
  now: number,
  source: string | null,
  extra?: Record<string, unknown>,
) {
  switch (d) {
    case 'pending':
      return start(rt, batch, at, 'pending', value, now, '')
    case 'fire':
      if (s) return fire(rt, batch, at.cr, at.rule, s, value, now, context(at.dev, source, extra))
      return start(rt, batch, at, 'firing', value, now, context(at.dev, source, extra))
    case 'resolve':
      return s && resolve(rt, batch, at, s, value, now)
    case 'cancel':
      return s && cancel(rt, at, s)
  }
}
