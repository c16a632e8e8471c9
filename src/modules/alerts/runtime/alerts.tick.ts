import { toIso } from '../../../lib/clock'
import type { AlertDevice } from './alerts.runtime-ports'
import { applies, paramsFor, type ClientRules, type CompiledRule } from './alerts.compiled-rules'
import { dispatch, flushGroups } from './alerts.dispatch'
import { DEFAULT_INTERVAL_MS, forecastDecision, forecastDiskFull, isOffline, onTick } from './alerts.evaluator'
import type { NoticeItem } from './alerts.notice-text'
import { deviceRef, deviceState, seriesOf, type DeviceRuntime, type Runtime } from './alerts.runtime-state'
import { apply, entry, refresh, resolve } from './alerts.transitions'
import type { AlertRow } from '../alerts.store'

/** no sample from any device for this long, when several were reporting: the hub's own network is down */
export const HUB_QUIET_MS = 3 * 60_000
/** the disk trend is read again at most this often per device (the hourly tier changes once an hour) */
export const FORECAST_EVERY_MS = 10 * 60_000
/** hours of hourly averages the disk trend is drawn through */
export const FORECAST_WINDOW_H = 24

const intervalOf = (dev: DeviceRuntime) => dev.interval ?? DEFAULT_INTERVAL_MS

/**
 * The time-driven half of the runtime, run by the `alerts.evaluate` job: devices gone quiet
 * (offline, with gateways and the hub's own uplink), durations that elapse without a new
 * observation, disk-full forecasts, repeats, delayed recovery notices, notices held by
 * silences, and grouping windows that close. Every hub runs it on its own memory: what another
 * hub changed is read back first (`follow`), and every change it makes is a conditional write.
 */
export async function tick(rt: Runtime): Promise<void> {
  const { deps, state } = rt
  const now = deps.clock.now()
  await follow(rt, now)
  const batch: NoticeItem[] = []
  const blind = hubBlind(rt, now)
  const byClient = new Map<string, DeviceRuntime[]>()
  for (const dev of state.devices.values()) {
    let l = byClient.get(dev.clientId)
    if (!l) byClient.set(dev.clientId, (l = []))
    l.push(dev)
  }
  for (const [clientId, cr] of state.clients) {
    for (const dev of byClient.get(clientId) ?? []) if (dev.series.size) await pendingDurations(rt, batch, cr, dev, now)
    if (!cr.offline.length && !cr.forecast.length) continue
    const list = await deps.devices.list(clientId)
    if (cr.offline.length && !blind) await offline(rt, batch, clientId, cr, list, now)
    if (cr.forecast.length) await forecasts(rt, batch, clientId, cr, list, now)
  }
  await notices(rt, batch, now)
  await dispatch(rt, batch, now)
  await flushGroups(rt, now)
}

/**
 * The open alerts as stored (one client's, or all): those another hub started are followed from
 * now on (as at start), and those another hub resolved, acknowledged or notified are taken as
 * they are now.
 */
export async function follow(rt: Runtime, now: number, clientId: string | null = null) {
  const { state } = rt
  const mine = (a: AlertRow) => clientId === null || a.client_id === clientId
  const stored = new Map((await rt.deps.store.openAlerts()).filter(mine).map((a) => [a.id, a]))
  for (const a of [...state.open.values()]) {
    if (!mine(a)) continue
    const row = stored.get(a.id)
    if (!row) await refresh(rt, a)
    else Object.assign(a, row)
  }
  for (const row of stored.values()) if (!state.open.has(row.id)) track(rt, row, now)
}

/** An open alert this hub did not know: held as open, its series followed (at start, or started by another hub). */
export function track(rt: Runtime, a: AlertRow, now: number) {
  rt.state.open.set(a.id, a)
  if (a.state === 'resolved') return
  const series = seriesOf(deviceState(rt, a.client_id, a.device_id), a.rule_id)
  if (series.has(a.series)) return
  series.set(a.series, { state: a.state as 'pending' | 'firing', alertId: a.id, since: a.started_at, value: a.value ?? 0, lastAt: now, misses: 0 })
}

function hubBlind(rt: Runtime, now: number): boolean {
  const { state } = rt
  const last = state.lastObservedAt
  if (last === null || now - last <= HUB_QUIET_MS) {
    if (state.blindSince !== null) {
      state.blindSince = null
      state.graceFrom = now
    }
    return false
  }
  let reporting = 0
  for (const dev of state.devices.values()) if (dev.lastSeen !== null && last - dev.lastSeen < 3_600_000) reporting++
  if (reporting < 2) return false
  if (state.blindSince === null) {
    state.blindSince = now
    for (const [clientId, cr] of state.clients) if (cr.offline.length) hubNotice(rt, clientId, cr, last, now)
  }
  return true
}

/** One notice per client instead of an offline alert per device. */
function hubNotice({ deps }: Runtime, clientId: string, cr: ClientRules, last: number, now: number) {
  const rule = cr.offline[0]!
  const channels = [...new Set([...rule.channelIds, ...cr.routing.critical])]
  if (!channels.length) return
  deps.notify(clientId, channels, {
    event: 'firing',
    severity: 'critical',
    title: 'CRITICAL: the hub receives no data from any device',
    body: `No device has reported since ${toIso(last)}. The hub's own network connection is the likely cause; offline alerts are held until data flows again.`,
    url: deps.siteUrl ? `${deps.siteUrl.replace(/\/$/, '')}/alerts` : null,
    devices: [],
    rule: { id: rule.id, name: rule.name },
    alert_ids: [],
    timestamp: toIso(now),
  })
}

async function offline(rt: Runtime, batch: NoticeItem[], clientId: string, cr: ClientRules, list: AlertDevice[], now: number) {
  const off = new Set<string>()
  const newly: [CompiledRule, DeviceRuntime][] = []
  for (const d of list) {
    const dev = deviceState(rt, clientId, d.id)
    const seen = Math.max(dev.lastSeen ?? -1, d.lastSeenAt ?? -1)
    if (seen < 0) continue // never reported: not offline, not yet online
    const device = { id: d.id, tags: d.tags }
    for (const rule of cr.offline) {
      if (!applies(rule, device)) continue
      const s = dev.series.get(rule.id)?.get('')
      if (isOffline(Math.max(seen, rt.state.graceFrom), intervalOf(dev), rule.offlineIntervals, now)) {
        off.add(d.id)
        if (!s) newly.push([rule, dev])
      } else if (s) await resolve(rt, batch, { cr, rule, dev, series: '' }, s, null, now, 'reporting again')
    }
  }
  // gateways first, so that what sits behind them can be folded into their notice
  const firedItems = new Map<string, NoticeItem>()
  newly.sort(([, a], [, b]) => Number(cr.parents.has(a.id)) - Number(cr.parents.has(b.id)))
  for (const [rule, dev] of newly) {
    const last = Math.max(dev.lastSeen ?? -1, list.find((d) => d.id === dev.id)?.lastSeenAt ?? -1)
    const before = batch.length
    await apply(rt, batch, { cr, rule, dev, series: '' }, null, 'fire', null, now, null, {
      last_seen_at: toIso(last),
      interval_seconds: intervalOf(dev) / 1000,
    })
    const item = batch.length > before ? batch[batch.length - 1]! : null
    const parent = cr.parents.get(dev.id)
    if (item && parent && off.has(parent)) {
      item.alert.suppressed_by = parent
      await rt.deps.store.setSuppressed(
        item.alert.client_id,
        item.alert.id,
        parent,
        entry('suppressed', now, { note: `behind ${parent}, which is offline too` }),
      )
      firedItems.get(parent)?.behind.push(item.device.name)
    } else if (item) firedItems.set(dev.id, item)
  }
}

async function pendingDurations(rt: Runtime, batch: NoticeItem[], cr: ClientRules, dev: DeviceRuntime, now: number) {
  for (const [ruleId, states] of dev.series) {
    const rule = cr.byId.get(ruleId)
    if (rule?.kind !== 'threshold') continue
    for (const [series, s] of [...states]) {
      const d = onTick(s, paramsFor(rule, dev.id), now)
      if (d !== 'none') await apply(rt, batch, { cr, rule, dev, series }, s, d, s.value, now, rule.selector!.source)
    }
  }
}

async function forecasts(rt: Runtime, batch: NoticeItem[], clientId: string, cr: ClientRules, list: AlertDevice[], now: number) {
  for (const d of list) {
    const dev = deviceState(rt, clientId, d.id)
    const seen = Math.max(dev.lastSeen ?? -1, d.lastSeenAt ?? -1)
    if (seen < now - 86_400_000 || now - dev.forecastAt < FORECAST_EVERY_MS) continue
    const rules = cr.forecast.filter((r) => applies(r, { id: d.id, tags: d.tags }))
    if (!rules.length) continue
    dev.forecastAt = now
    let points: { t: number; avg: number }[]
    try {
      points = await rt.deps.metrics.diskTrend(clientId, d.id, FORECAST_WINDOW_H)
    } catch {
      continue // deleted meanwhile
    }
    const f = forecastDiskFull(points)
    for (const rule of rules) {
      const s = dev.series.get(rule.id)?.get('') ?? null
      const decision = forecastDecision(s !== null, f, rule.forecastHours)
      if (decision === 'none' || !f) continue
      const hours = Number.isFinite(f.hoursLeft) ? Math.round(f.hoursLeft * 10) / 10 : null
      const extra = {
        hours_left: hours,
        slope_percent_per_hour: Math.round(f.slopePerHour * 1000) / 1000,
        disk_used_percent: f.current,
        window_hours: FORECAST_WINDOW_H,
      }
      await apply(rt, batch, { cr, rule, dev, series: '' }, s, decision, hours, now, 'hardware', extra)
    }
  }
}

/** Alerts whose notice is due now: first notices held by a silence or a gateway, repeats, delayed recoveries. */
async function notices(rt: Runtime, batch: NoticeItem[], now: number) {
  const inBatch = new Set(batch.map((i) => i.alert.id))
  const { state } = rt
  for (const a of [...state.open.values()]) {
    if (inBatch.has(a.id)) continue
    const cr = state.clients.get(a.client_id)
    const rule = cr?.byId.get(a.rule_id)
    if (!cr || !rule) continue
    const item = (kind: NoticeItem['kind']) => batch.push({ kind, alert: a, rule, device: deviceRef(rt, a.client_id, a.device_id), behind: [] })
    if (a.state === 'resolved') {
      if (a.recovery_due_at !== null && a.recovery_due_at <= now && !state.held.has(a.id)) item('resolved')
      continue
    }
    if (a.state !== 'firing') continue
    if (a.suppressed_by !== null) {
      const parentDown = cr.offline.some((r) => state.devices.get(a.suppressed_by!)?.series.get(r.id)?.has(''))
      if (parentDown) continue
      a.suppressed_by = null
      await rt.deps.store.setSuppressed(a.client_id, a.id, null, entry('unsuppressed', now, { note: 'the gateway is back; this device is still offline' }))
    }
    if (a.ack_at !== null || state.held.has(a.id)) continue
    if (a.last_notified_at === null) item('firing')
    else if (rule.repeatMs !== null && now - a.last_notified_at >= rule.repeatMs) item('repeat')
  }
}
