import { toIso } from '../../../lib/clock'
import { newId } from '../../../lib/ids'
import type { Severity } from '../alerts.model'
import type { AlertRow, NewEvent } from '../alerts.store'
import { view } from '../alerts.view'
import { paramsFor, severityFor, type ClientRules, type CompiledRule } from './alerts.compiled-rules'
import type { Decision, SeriesState } from './alerts.evaluator'
import type { NoticeItem } from './alerts.notice-text'
import { deviceRef, deviceState, scoped, seriesOf, type DeviceRuntime, type Runtime } from './alerts.runtime-state'
import { silenced } from './alerts.silence-windows'

/**
 * The changes of an alert's state: started (pending or firing), fired, resolved, cancelled.
 * Every change is a conditional write (alerts.store.ts) made before it is announced on the bus,
 * so a restart keeps firing alerts firing. With several hubs evaluating the same device, only
 * the hub whose write lands publishes the event and adds the notice to its batch (which
 * dispatch sends); the others take the stored row as it is now (`adopt`, `refresh`).
 */

export type RuleRef = { id: string; name: string; severity: Severity; metric: string | null }

type Extra = { value?: number | null; by?: string | null; note?: string | null }

/** a timeline entry */
export const entry = (type: string, at: number, extra: Extra = {}): NewEvent => ({
  at,
  type,
  value: extra.value ?? null,
  by: extra.by ?? null,
  note: extra.note ?? null,
})

export function event(rt: Runtime, a: AlertRow, type: string, at: number, extra: Extra = {}): Promise<void> {
  return rt.deps.store.addEvent(a.client_id, a.id, entry(type, at, extra))
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

async function start(rt: Runtime, batch: NoticeItem[], at: At, to: 'pending' | 'firing', value: number | null, now: number, ctx: string) {
  const { store } = rt.deps
  const { cr, rule, dev, series } = at
  const again = relapsed(rt, rule, dev.id, series)
  if (again) {
    const row = await store.reopenAlert(
      again.client_id,
      again.id,
      value,
      entry('reopened', now, { value, note: 'relapsed before the recovery notice went out' }),
    )
    if (row) {
      Object.assign(again, row)
      seriesOf(dev, rule.id).set(series, { state: 'firing', alertId: again.id, since: again.started_at, value: value ?? 0, lastAt: now, misses: 0 })
      publish(rt, 'alert.firing', again, rule, cr)
      return
    }
    // another hub moved it first: what is stored now decides
    await refresh(rt, again)
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
    started_at: now,
    fired_at: to === 'firing' ? now : null,
    resolved_at: null,
    ack_by: null,
    ack_at: null,
    ack_note: null,
    suppressed_by: null,
    context: to === 'firing' ? ctx : null,
    last_notified_at: null,
    recovery_due_at: null,
  }
  const events = [entry('pending', now, { value }), ...(to === 'firing' ? [entry('firing', now, { value })] : [])]
  const started = await store.startAlert(a, events)
  if (!started.won) return adopt(rt, at, started.alert, value, now)
  rt.state.open.set(a.id, a)
  seriesOf(dev, rule.id).set(series, { state: to, alertId: a.id, since: now, value: value ?? 0, lastAt: now, misses: 0 })
  if (to === 'firing') fired(rt, batch, cr, rule, a)
}

/** The series' open alert another hub started first: this hub follows it from now on, and tells nothing. */
function adopt(rt: Runtime, { rule, dev, series }: At, row: AlertRow, value: number | null, now: number) {
  const held = rt.state.open.get(row.id)
  rt.state.open.set(row.id, held ? Object.assign(held, row) : row)
  const state = row.state === 'firing' ? 'firing' : 'pending'
  seriesOf(dev, rule.id).set(series, { state, alertId: row.id, since: row.started_at, value: value ?? 0, lastAt: now, misses: 0 })
}

/**
 * A write this hub lost: the alert as stored now replaces the hub's copy. Resolved (with no
 * recovery notice due) or gone, it leaves the hub's open alerts and its series' state.
 */
export async function refresh(rt: Runtime, a: AlertRow): Promise<AlertRow | null> {
  const row = await rt.deps.store.alert(a.client_id, a.id)
  if (row) Object.assign(a, row)
  const s = rt.state.devices.get(a.device_id)?.series.get(a.rule_id)
  const held = s?.get(a.series)
  if (!row || row.state === 'resolved') {
    if (held?.alertId === a.id) s!.delete(a.series)
    if (!row || row.recovery_due_at === null) rt.state.open.delete(a.id)
    rt.state.held.delete(a.id)
    rt.state.groups.drop((i) => i.alert.id === a.id)
  } else if (held?.alertId === a.id) held.state = row.state === 'firing' ? 'firing' : 'pending'
  return row
}

function fired(rt: Runtime, batch: NoticeItem[], cr: ClientRules, rule: CompiledRule, a: AlertRow) {
  publish(rt, 'alert.firing', a, rule, cr)
  batch.push({ kind: 'firing', alert: a, rule, device: deviceRef(rt, a.client_id, a.device_id), behind: [] })
}

async function fire(rt: Runtime, batch: NoticeItem[], cr: ClientRules, rule: CompiledRule, s: SeriesState, value: number | null, at: number, ctx: string) {
  const a = rt.state.open.get(s.alertId)
  if (!a) return
  const next: AlertRow = { ...a, state: 'firing', fired_at: at, value, context: ctx }
  if (!(await rt.deps.store.fireAlert(next, entry('firing', at, { value })))) {
    await refresh(rt, a)
    return
  }
  Object.assign(a, next)
  s.state = 'firing'
  fired(rt, batch, cr, rule, a)
}

/** Resolves the series' alert; its recovery notice goes now, later (a delay), or not at all (never notified). */
export async function resolve(
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
  const notice = rule.notifyRecovery && a.last_notified_at !== null
  const next: AlertRow = {
    ...a,
    state: 'resolved',
    resolved_at: at,
    value: value ?? a.value,
    recovery_due_at: notice && rule.recoveryDelayMs > 0 ? at + rule.recoveryDelayMs : null,
  }
  if (!(await store.resolveAlert(next, entry('resolved', at, { value, note })))) {
    await refresh(rt, a)
    return
  }
  Object.assign(a, next)
  if (a.recovery_due_at === null) rt.state.open.delete(a.id)
  rt.state.groups.drop((i) => i.alert.id === a.id && i.kind !== 'resolved')
  rt.state.held.delete(a.id)
  publish(rt, 'alert.resolved', a, rule, cr)
  if (notice && rule.recoveryDelayMs <= 0) batch.push({ kind: 'resolved', alert: a, rule, device: deviceRef(rt, a.client_id, a.device_id), behind: [] })
}

/** A pending alert that never fired leaves nothing behind (fired meanwhile by another hub, it stays). */
export async function cancel(rt: Runtime, { rule, dev, series }: At, s: SeriesState) {
  const a = rt.state.open.get(s.alertId)
  dev.series.get(rule.id)?.delete(series)
  rt.state.open.delete(s.alertId)
  if (!a || (await rt.deps.store.cancelAlert(a.client_id, a.id))) return
  const row = await rt.deps.store.alert(a.client_id, a.id)
  if (row && row.state === 'firing') {
    rt.state.open.set(a.id, Object.assign(a, row))
    seriesOf(dev, rule.id).set(series, { ...s, state: 'firing' })
  }
}

/** Applies the evaluator's decision for one series; `source` names the observation whose values explain a firing. */
export async function apply(
  rt: Runtime,
  batch: NoticeItem[],
  at: At,
  s: SeriesState | null,
  d: Decision,
  value: number | null,
  now: number,
  source: string | null,
  extra?: Record<string, unknown>,
): Promise<void> {
  switch (d) {
    case 'pending':
      return start(rt, batch, at, 'pending', value, now, '')
    case 'fire':
      if (s) return fire(rt, batch, at.cr, at.rule, s, value, now, context(at.dev, source, extra))
      return start(rt, batch, at, 'firing', value, now, context(at.dev, source, extra))
    case 'resolve':
      if (s) await resolve(rt, batch, at, s, value, now)
      return
    case 'cancel':
      if (s) await cancel(rt, at, s)
      return
  }
}
