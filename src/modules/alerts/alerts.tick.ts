import { toIso } from '../../lib/clock'
import { forecastDecision, forecastDiskFull, isOffline, onTick } from './alerts.evaluator'
import type { AlertDevice, AlertsEngine, DeviceRuntime } from './alerts.engine'
import type { NoticeItem } from './alerts.notices'
import { applies, paramsFor, type ClientRules, type CompiledRule } from './alerts.rules'

/** no sample from any device for this long, when several were reporting: the hub's own network is down */
export const HUB_QUIET_MS = 3 * 60_000
/** the disk trend is read again at most this often per device (the hourly tier changes once an hour) */
export const FORECAST_EVERY_MS = 10 * 60_000
/** hours of hourly averages the disk trend is drawn through */
export const FORECAST_WINDOW_H = 24

/**
 * The time-driven half of the engine, run by the `alerts.evaluate` job: devices gone quiet
 * (offline, with gateways and the hub's own uplink), durations that elapse without a new
 * sample, disk-full forecasts, repeats, delayed recovery notices, notices held by silences,
 * and grouping windows that close.
 */
export function createTicker(engine: AlertsEngine) {
  const { deps } = engine
  /** offline windows are counted from here at the earliest: the hub's start, or its uplink coming back */
  let graceFrom = engine.bootAt
  let blindSince: number | null = null

  function hubBlind(now: number): boolean {
    const last = engine.lastSampleAt()
    if (last === null || now - last <= HUB_QUIET_MS) {
      if (blindSince !== null) {
        blindSince = null
        graceFrom = now
      }
      return false
    }
    let reporting = 0
    for (const dev of engine.devices.values()) if (dev.lastSeen !== null && last - dev.lastSeen < 3_600_000) reporting++
    if (reporting < 2) return false
    if (blindSince === null) {
      blindSince = now
      for (const [clientId, cr] of engine.clients) if (cr.offline.length) hubNotice(clientId, cr, last, now)
    }
    return true
  }

  /** One notice per client instead of an offline alert per device. */
  function hubNotice(clientId: string, cr: ClientRules, last: number, now: number) {
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

  function offline(batch: NoticeItem[], clientId: string, cr: ClientRules, list: AlertDevice[], now: number) {
    const off = new Set<string>()
    const newly: [CompiledRule, DeviceRuntime][] = []
    for (const d of list) {
      const dev = engine.runtime(clientId, d.id)
      const seen = Math.max(dev.lastSeen ?? -1, d.lastSeenAt ?? -1)
      if (seen < 0) continue // never reported: not offline, not yet online
      const device = { id: d.id, tags: d.tags }
      for (const rule of cr.offline) {
        if (!applies(rule, device)) continue
        const s = dev.series.get(rule.id)?.get('')
        if (isOffline(Math.max(seen, graceFrom), engine.interval(dev), rule.offlineIntervals, now)) {
          off.add(d.id)
          if (!s) newly.push([rule, dev])
        } else if (s) engine.resolve(batch, cr, rule, dev, '', s, null, now, 'reporting again')
      }
    }
    // gateways first, so that what sits behind them can be folded into their notice
    const firedItems = new Map<string, NoticeItem>()
    newly.sort(([, a], [, b]) => Number(cr.parents.has(a.id)) - Number(cr.parents.has(b.id)))
    for (const [rule, dev] of newly) {
      const last = Math.max(dev.lastSeen ?? -1, list.find((d) => d.id === dev.id)?.lastSeenAt ?? -1)
      const before = batch.length
      engine.apply(batch, cr, rule, dev, '', null, 'fire', null, now, null, { last_seen_at: toIso(last), interval_seconds: engine.interval(dev) / 1000 })
      const item = batch.length > before ? batch[batch.length - 1]! : null
      const parent = cr.parents.get(dev.id)
      if (item && parent && off.has(parent)) {
        item.alert.suppressed_by = parent
        deps.store.updateAlert(item.alert)
        engine.event(item.alert, 'suppressed', now, { note: `behind ${parent}, which is offline too` })
        firedItems.get(parent)?.behind.push(item.device.name)
      } else if (item) firedItems.set(dev.id, item)
    }
  }

  function pendingDurations(batch: NoticeItem[], cr: ClientRules, dev: DeviceRuntime, now: number) {
    for (const [ruleId, states] of dev.series) {
      const rule = cr.byId.get(ruleId)
      if (rule?.kind !== 'threshold') continue
      for (const [series, s] of states) {
        const d = onTick(s, paramsFor(rule, dev.id), now)
        if (d !== 'none') engine.apply(batch, cr, rule, dev, series, s, d, s.value, now, rule.selector!.kind)
      }
    }
  }

  function forecasts(batch: NoticeItem[], clientId: string, cr: ClientRules, list: AlertDevice[], now: number) {
    for (const d of list) {
      const dev = engine.runtime(clientId, d.id)
      const seen = Math.max(dev.lastSeen ?? -1, d.lastSeenAt ?? -1)
      if (seen < now - 86_400_000 || now - dev.forecastAt < FORECAST_EVERY_MS) continue
      const rules = cr.forecast.filter((r) => applies(r, { id: d.id, tags: d.tags }))
      if (!rules.length) continue
      dev.forecastAt = now
      let points: { t: number; avg: number }[]
      try {
        points = deps.metrics.diskTrend(clientId, d.id, FORECAST_WINDOW_H)
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
        engine.apply(batch, cr, rule, dev, '', s, decision, hours, now, 'hardware', extra)
      }
    }
  }

  /** Alerts whose notice is due now: first notices held by a silence or a gateway, repeats, delayed recoveries. */
  function notices(batch: NoticeItem[], now: number) {
    const inBatch = new Set(batch.map((i) => i.alert.id))
    for (const a of engine.open.values()) {
      if (inBatch.has(a.id)) continue
      const cr = engine.clients.get(a.client_id)
      const rule = cr?.byId.get(a.rule_id)
      if (!cr || !rule) continue
      const item = (kind: NoticeItem['kind']) => batch.push({ kind, alert: a, rule, device: engine.deviceRef(a.client_id, a.device_id), behind: [] })
      if (a.state === 'resolved') {
        if (a.recovery_due_at !== null && a.recovery_due_at <= now && !engine.held.has(a.id)) item('resolved')
        continue
      }
      if (a.state !== 'firing') continue
      if (a.suppressed_by !== null) {
        const parentDown = cr.offline.some((r) => engine.devices.get(a.suppressed_by!)?.series.get(r.id)?.has(''))
        if (parentDown) continue
        a.suppressed_by = null
        deps.store.updateAlert(a)
        engine.event(a, 'unsuppressed', now, { note: 'the gateway is back; this device is still offline' })
      }
      if (a.ack_at !== null || engine.held.has(a.id)) continue
      if (a.last_notified_at === null) item('firing')
      else if (rule.repeatMs !== null && now - a.last_notified_at >= rule.repeatMs) item('repeat')
    }
  }

  return function tick(): void {
    const now = deps.clock.now()
    const batch: NoticeItem[] = []
    const blind = hubBlind(now)
    const byClient = new Map<string, DeviceRuntime[]>()
    for (const dev of engine.devices.values()) {
      let l = byClient.get(dev.clientId)
      if (!l) byClient.set(dev.clientId, (l = []))
      l.push(dev)
    }
    for (const [clientId, cr] of engine.clients) {
      for (const dev of byClient.get(clientId) ?? []) if (dev.series.size) pendingDurations(batch, cr, dev, now)
      if (!cr.offline.length && !cr.forecast.length) continue
      const list = deps.devices.list(clientId)
      if (cr.offline.length && !blind) offline(batch, clientId, cr, list, now)
      if (cr.forecast.length) forecasts(batch, clientId, cr, list, now)
    }
    notices(batch, now)
    engine.dispatch(batch, now)
    for (const g of engine.groups.flush(now)) {
      const cr = engine.clients.get(g.items[0]!.alert.client_id)
      if (cr) engine.send(cr, g.items, now)
    }
  }
}
