import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { MetricKind } from '../metrics/metrics.fields'
import { DEFAULT_INTERVAL_MS, nextInterval, onMissing, onSample, STALE_MS, type Decision, type SeriesState } from './alerts.evaluator'
import { NoticeGroups } from './alerts.grouping'
import type { Severity } from './alerts.model'
import { buildNotice, type NoticeItem } from './alerts.notices'
import type { AlertsEngineDeps } from './alerts.ports'
import { view } from './alerts.view'
import { applies, indexClient, paramsFor, severityFor, type ClientRules, type CompiledRule } from './alerts.rules'
import { silenced, type ScopedDevice } from './alerts.silences'
import type { AlertRow } from './alerts.store'

/** What the engine keeps of one device between samples. */
export interface DeviceRuntime {
  id: string
  clientId: string
  /** when the hub last heard from it (receipt time, so replays count as alive) */
  lastSeen: number | null
  lastTs: number | null
  interval: number | null
  last: Record<MetricKind, { ts: number; values: Record<string, unknown> } | null>
  /** rule id → series → state, for series not at rest */
  series: Map<string, Map<string, SeriesState>>
  tags: string[] | null
  tagsAt: number
  forecastAt: number
}

/** device tags are looked up again after this long (tag scopes follow portal edits within it) */
const TAGS_TTL_MS = 60_000

export type AlertsEngine = ReturnType<typeof createAlertsEngine>
export type { AlertDevice, AlertDevices, AlertMetrics, Notify } from './alerts.ports'

/**
 * The alert runtime: every client's rules indexed in memory, the state of each (rule, device,
 * series) not at rest, and the open alerts. Fed by stored samples (synchronously, on the ingest
 * path: O(rules of that client and kind), no SQL unless a state changes) and by ticks (the
 * evaluate job). Every state change is written before it is announced, so a restart keeps
 * firing alerts firing.
 */
export function createAlertsEngine(deps: AlertsEngineDeps) {
  const { store, clock } = deps
  const clients = new Map<string, ClientRules>()
  const setUp = new Set<string>()
  const devices = new Map<string, DeviceRuntime>()
  /** pending and firing alerts, and resolved ones whose recovery notice waits */
  const open = new Map<string, AlertRow>()
  const groups = new NoticeGroups<NoticeItem>()
  const silencedNoted = new Set<string>()
  /** alerts whose notice waits in a grouping window */
  const held = new Set<string>()
  const bootAt = clock.now()
  let lastSampleAt: number | null = null

  // ---- loading ----

  function reload(clientId: string): ClientRules {
    const parents = new Map(store.dependenciesOf(clientId).map((d) => [d.device_id, d.parent_device_id]))
    const cr = indexClient(store.rulesOf(clientId), store.overridesOf(clientId), store.settings(clientId) ?? null, store.silencesOf(clientId), parents)
    clients.set(clientId, cr)
    for (const dev of devices.values()) {
      if (dev.clientId !== clientId) continue
      dev.tags = null
      // states of rules that are gone or disabled are dropped (their alerts were closed by the service)
      for (const ruleId of dev.series.keys()) if (!cr.byId.has(ruleId)) dev.series.delete(ruleId)
    }
    return cr
  }

  function boot() {
    const byClient = new Set<string>()
    for (const r of store.allRules()) byClient.add(r.client_id)
    for (const s of store.allSettings()) {
      byClient.add(s.client_id)
      if (s.defaults_created_at !== null) setUp.add(s.client_id)
    }
    for (const c of byClient) reload(c)
    const now = clock.now()
    for (const a of store.openAlerts()) {
      open.set(a.id, a)
      if (a.state === 'resolved') continue
      const dev = runtime(a.client_id, a.device_id)
      seriesOf(dev, a.rule_id).set(a.series, {
        state: a.state as 'pending' | 'firing',
        alertId: a.id,
        since: a.started_at,
        value: a.value ?? 0,
        lastAt: now,
        misses: 0,
      })
    }
  }

  function runtime(clientId: string, deviceId: string): DeviceRuntime {
    let dev = devices.get(deviceId)
    if (!dev) {
      dev = {
        id: deviceId,
        clientId,
        lastSeen: null,
        lastTs: null,
        interval: null,
        last: { hardware: null, network: null },
        series: new Map(),
        tags: null,
        tagsAt: 0,
        forecastAt: 0,
      }
      devices.set(deviceId, dev)
    }
    return dev
  }

  function seriesOf(dev: DeviceRuntime, ruleId: string): Map<string, SeriesState> {
    let m = dev.series.get(ruleId)
    if (!m) dev.series.set(ruleId, (m = new Map()))
    return m
  }

  /** The device's tags, only when some scope needs them; refreshed after TAGS_TTL_MS. */
  function scoped(cr: ClientRules, dev: DeviceRuntime, now: number): ScopedDevice {
    if (cr.needsTags && (dev.tags === null || now - dev.tagsAt > TAGS_TTL_MS)) {
      dev.tags = deps.devices.find(dev.clientId, dev.id)?.tags ?? []
      dev.tagsAt = now
    }
    return { id: dev.id, tags: dev.tags ?? [] }
  }

  // ---- transitions: written, then announced ----

  function deviceRef(clientId: string, deviceId: string) {
    const d = deps.devices.find(clientId, deviceId)
    return { id: deviceId, name: d?.name ?? deviceId }
  }

  function event(a: AlertRow, type: string, at: number, extra: { value?: number | null; by?: string | null; note?: string | null } = {}) {
    store.addEvent(a.client_id, { alert_id: a.id, at, type, value: extra.value ?? null, by: extra.by ?? null, note: extra.note ?? null })
  }

  function publish(
    type: 'alert.firing' | 'alert.resolved' | 'alert.acknowledged',
    a: AlertRow,
    rule: { id: string; name: string; severity: Severity; metric: string | null },
    cr: ClientRules,
  ) {
    deps.events.publish(a.client_id, type, { alert: view(a, rule, deviceRef(a.client_id, a.device_id), isSilenced(cr, a)) })
  }

  function isSilenced(cr: ClientRules, a: AlertRow): boolean {
    if (cr.silences.length === 0) return false
    const dev = runtime(a.client_id, a.device_id)
    return silenced(cr.silences, a.rule_id, scoped(cr, dev, clock.now()), clock.now()) !== null
  }

  /** A resolved alert of the same series whose recovery notice still waits: a relapse reopens it. */
  function relapsed(rule: CompiledRule, deviceId: string, series: string): AlertRow | null {
    for (const a of open.values()) {
      if (a.state === 'resolved' && a.rule_id === rule.id && a.device_id === deviceId && a.series === series && a.recovery_due_at !== null) return a
    }
    return null
  }

  function context(dev: DeviceRuntime, kind: MetricKind | null, extra: Record<string, unknown> = {}): string {
    const last = kind ? dev.last[kind] : null
    const ctx: Record<string, unknown> = { ...extra }
    if (last) {
      const sample: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(last.values)) if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') sample[k] = v
      ctx.sample = { kind, recorded_at: toIso(last.ts), values: sample }
      const hw = dev.last.hardware?.values.top_processes
      if (hw) ctx.top_processes = hw
    }
    return JSON.stringify(ctx)
  }

  /** Starts an alert (pending, or straight to firing). */
  function start(
    batch: NoticeItem[],
    cr: ClientRules,
    rule: CompiledRule,
    dev: DeviceRuntime,
    series: string,
    to: 'pending' | 'firing',
    value: number | null,
    at: number,
    ctx: string,
  ) {
    const again = relapsed(rule, dev.id, series)
    if (again) {
      again.state = 'firing'
      again.resolved_at = null
      again.recovery_due_at = null
      again.value = value
      store.transaction(() => {
        store.updateAlert(again)
        event(again, 'reopened', at, { value, note: 'relapsed before the recovery notice went out' })
      })
      seriesOf(dev, rule.id).set(series, { state: 'firing', alertId: again.id, since: again.started_at, value: value ?? 0, lastAt: at, misses: 0 })
      publish('alert.firing', again, rule, cr)
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
      event(a, 'pending', at, { value })
      if (to === 'firing') event(a, 'firing', at, { value })
    })
    open.set(a.id, a)
    seriesOf(dev, rule.id).set(series, { state: to, alertId: a.id, since: at, value: value ?? 0, lastAt: at, misses: 0 })
    if (to === 'firing') fired(batch, cr, rule, a)
  }

  function fired(batch: NoticeItem[], cr: ClientRules, rule: CompiledRule, a: AlertRow) {
    publish('alert.firing', a, rule, cr)
    batch.push({ kind: 'firing', alert: a, rule, device: deviceRef(a.client_id, a.device_id), behind: [] })
  }

  function fire(batch: NoticeItem[], cr: ClientRules, rule: CompiledRule, s: SeriesState, value: number | null, at: number, ctx: string) {
    const a = open.get(s.alertId)
    if (!a) return
    a.state = 'firing'
    a.fired_at = at
    a.value = value
    a.context = ctx
    store.transaction(() => {
      store.updateAlert(a)
      event(a, 'firing', at, { value })
    })
    s.state = 'firing'
    fired(batch, cr, rule, a)
  }

  function resolve(
    batch: NoticeItem[],
    cr: ClientRules,
    rule: CompiledRule,
    dev: DeviceRuntime,
    series: string,
    s: SeriesState,
    value: number | null,
    at: number,
    note: string | null = null,
  ) {
    dev.series.get(rule.id)?.delete(series)
    const a = open.get(s.alertId)
    if (!a) return
    a.state = 'resolved'
    a.resolved_at = at
    if (value !== null) a.value = value
    const notice = rule.notifyRecovery && a.last_notified_at !== null
    a.recovery_due_at = notice && rule.recoveryDelayMs > 0 ? at + rule.recoveryDelayMs : null
    store.transaction(() => {
      store.updateAlert(a)
      event(a, 'resolved', at, { value, note })
    })
    if (a.recovery_due_at === null) open.delete(a.id)
    groups.drop((i) => i.alert.id === a.id && i.kind !== 'resolved')
    held.delete(a.id)
    publish('alert.resolved', a, rule, cr)
    if (notice && rule.recoveryDelayMs <= 0) batch.push({ kind: 'resolved', alert: a, rule, device: deviceRef(a.client_id, a.device_id), behind: [] })
  }

  function cancel(rule: CompiledRule, dev: DeviceRuntime, series: string, s: SeriesState) {
    dev.series.get(rule.id)?.delete(series)
    open.delete(s.alertId)
    store.deleteAlert(s.alertId)
  }

  function apply(
    batch: NoticeItem[],
    cr: ClientRules,
    rule: CompiledRule,
    dev: DeviceRuntime,
    series: string,
    s: SeriesState | null,
    d: Decision,
    value: number | null,
    at: number,
    kind: MetricKind | null,
    extra?: Record<string, unknown>,
  ) {
    switch (d) {
      case 'pending':
        return start(batch, cr, rule, dev, series, 'pending', value, at, '')
      case 'fire':
        if (s) return fire(batch, cr, rule, s, value, at, context(dev, kind, extra))
        return start(batch, cr, rule, dev, series, 'firing', value, at, context(dev, kind, extra))
      case 'resolve':
        return s && resolve(batch, cr, rule, dev, series, s, value, at)
      case 'cancel':
        return s && cancel(rule, dev, series, s)
    }
  }

  // ---- notices ----

  /** Sends what is due now, grouped per rule and kind; silenced and suppressed alerts wait. */
  function dispatch(batch: NoticeItem[], now: number) {
    const byKey = new Map<string, NoticeItem[]>()
    for (const item of batch) {
      const cr = clients.get(item.alert.client_id)
      if (!cr) continue
      if (item.kind !== 'acknowledged' && item.kind !== 'resolved') {
        if (item.alert.suppressed_by !== null) continue
        if (isSilenced(cr, item.alert)) {
          if (!silencedNoted.has(item.alert.id)) {
            silencedNoted.add(item.alert.id)
            event(item.alert, 'silenced', now)
          }
          continue
        }
      }
      const key = `${item.alert.client_id}\u0000${item.rule.id}\u0000${item.kind}`
      let list = byKey.get(key)
      if (!list) byKey.set(key, (list = []))
      list.push(item)
    }
    for (const [key, items] of byKey) {
      const cr = clients.get(items[0]!.alert.client_id)!
      const now_ = groups.offer(key, items, now, cr.groupWindowMs)
      if (now_.length === 0) for (const i of items) held.add(i.alert.id)
      send(cr, now_, now)
    }
  }

  function send(cr: ClientRules, items: NoticeItem[], now: number) {
    if (items.length === 0) return
    const first = items[0]!
    const severity = first.alert.severity as Severity
    const channels = [...new Set([...first.rule.channelIds, ...(cr.routing[severity] ?? [])])]
    const n = buildNotice(items, now, deps.siteUrl)
    // the timeline tells what was queued, not what was meant: the count comes back from the queue
    let queued = 0
    let why = `no channel is chosen for this rule or for ${severity} alerts`
    if (channels.length) {
      try {
        queued = deps.notify(first.alert.client_id, channels, n)
        why = `none of its ${channels.length} channel(s) is enabled and takes ${severity} notices`
      } catch (err) {
        why = 'it could not be queued (the log has the error)'
        deps.logger.error('alert notice failed', { client_id: first.alert.client_id, error: (err as Error).message })
      }
    }
    const grouped = items.length > 1 ? ` (grouped with ${items.length - 1} more)` : ''
    store.transaction(() => {
      for (const i of items) {
        if (i.kind === 'firing' || i.kind === 'repeat') i.alert.last_notified_at = now
        if (i.kind === 'resolved') i.alert.recovery_due_at = null
        store.updateAlert(i.alert)
        if (queued > 0) event(i.alert, 'notified', now, { note: `${i.kind} notice${grouped} queued for ${queued} channel(s)` })
        // with no channel chosen at all, the first notice says so; its repeats and recovery would only echo it
        else if (channels.length || i.kind === 'firing') event(i.alert, 'not_notified', now, { note: `no ${i.kind} notice was sent: ${why}` })
      }
    })
    for (const i of items) {
      held.delete(i.alert.id)
      if (i.alert.state === 'resolved' && i.alert.recovery_due_at === null) open.delete(i.alert.id)
    }
  }

  // ---- the ingest path ----

  /** The defaults for a client that has none yet (once per client: the first device that reports). */
  function ensureDefaults(clientId: string, make: (clientId: string) => void) {
    if (setUp.has(clientId)) return
    make(clientId)
    setUp.add(clientId)
    reload(clientId)
  }

  /** A newly stored sample (after its commit). Evaluates the client's rules of that kind on that device. */
  function observe(clientId: string, deviceId: string, kind: MetricKind, ts: number, values: Record<string, unknown>) {
    const now = clock.now()
    lastSampleAt = now
    const dev = runtime(clientId, deviceId)
    dev.lastSeen = now
    if (dev.lastTs !== null && ts > dev.lastTs) dev.interval = nextInterval(dev.interval, ts - dev.lastTs)
    if (dev.lastTs === null || ts >= dev.lastTs) dev.lastTs = ts
    const prev = dev.last[kind]
    // a replayed or late sample says the device is alive, but old values trip nothing now
    if (now - ts > STALE_MS || (prev && ts < prev.ts)) return
    dev.last[kind] = { ts, values }
    const cr = clients.get(clientId)
    if (!cr) return
    const batch: NoticeItem[] = []
    if (cr.offline.length && dev.series.size) {
      for (const rule of cr.offline) {
        const s = dev.series.get(rule.id)?.get('')
        if (s) resolve(batch, cr, rule, dev, '', s, null, now, 'reporting again')
      }
    }
    const groups = cr.byKind[kind]
    if (groups.length) {
      const device = scoped(cr, dev, now)
      for (const g of groups) {
        // the metric is read once for every rule that watches it
        const sel = g.selector
        const v = sel.wildcard ? null : sel.read(values)
        const pairs = sel.wildcard ? sel.each(values) : null
        for (const rule of g.rules) {
          if (!applies(rule, device)) continue
          const states = dev.series.size ? dev.series.get(rule.id) : undefined
          // the common case: nothing open and nothing past the threshold
          if (!states && v === null && !pairs) continue
          evaluate(batch, cr, rule, dev, kind, v, pairs, states, ts)
        }
      }
    }
    if (batch.length) dispatch(batch, now)
  }

  function evaluate(
    batch: NoticeItem[],
    cr: ClientRules,
    rule: CompiledRule,
    dev: DeviceRuntime,
    kind: MetricKind,
    v: number | null,
    pairs: [string, number][] | null,
    states: Map<string, SeriesState> | undefined,
    ts: number,
  ) {
    const p = paramsFor(rule, dev.id)
    if (!pairs) {
      const s = states?.get('') ?? null
      if (v === null) return s && missing(batch, cr, rule, dev, '', s, ts)
      step(batch, cr, rule, dev, kind, '', s, p, v, ts)
      return
    }
    for (const [series, x] of pairs) step(batch, cr, rule, dev, kind, series, states?.get(series) ?? null, p, x, ts)
    if (states?.size) {
      for (const [series, s] of states) if (!pairs.some(([k]) => k === series)) missing(batch, cr, rule, dev, series, s, ts)
    }
  }

  function step(
    batch: NoticeItem[],
    cr: ClientRules,
    rule: CompiledRule,
    dev: DeviceRuntime,
    kind: MetricKind,
    series: string,
    s: SeriesState | null,
    p: ReturnType<typeof paramsFor>,
    v: number,
    ts: number,
  ) {
    const d = onSample(s, p, v, ts)
    if (s) {
      s.value = v
      s.lastAt = ts
      s.misses = 0
    }
    if (d !== 'none') apply(batch, cr, rule, dev, series, s, d, v, ts, kind)
  }

  function missing(batch: NoticeItem[], cr: ClientRules, rule: CompiledRule, dev: DeviceRuntime, series: string, s: SeriesState, ts: number) {
    const d = onMissing(s)
    s.misses++
    if (d === 'resolve') resolve(batch, cr, rule, dev, series, s, null, ts, 'no longer reported')
    else if (d === 'cancel') cancel(rule, dev, series, s)
  }

  // ---- reads for the service and the tick ----

  function ruleRef(clientId: string, ruleId: string): { id: string; name: string; severity: Severity; metric: string | null } {
    const r = clients.get(clientId)?.byId.get(ruleId)
    if (r) return { id: r.id, name: r.name, severity: r.severity, metric: r.metric }
    const row = store.rule(clientId, ruleId)
    return { id: ruleId, name: row?.name ?? ruleId, severity: (row?.severity ?? 'warning') as Severity, metric: row?.metric ?? null }
  }

  /**
   * Closes what a rule had open before it is deleted, disabled or changed (for one device, or
   * all): firing alerts resolve with a note, pending ones go.
   */
  function retire(clientId: string, ruleId: string, note: string, deviceId: string | null = null) {
    const cr = clients.get(clientId)
    const rule = cr?.byId.get(ruleId)
    if (!cr || !rule) return
    const now = clock.now()
    const batch: NoticeItem[] = []
    for (const dev of devices.values()) {
      if (dev.clientId !== clientId || (deviceId !== null && dev.id !== deviceId)) continue
      const states = dev.series.get(ruleId)
      if (!states) continue
      for (const [series, s] of [...states]) {
        if (s.state === 'firing') resolve(batch, cr, rule, dev, series, s, null, now, note)
        else cancel(rule, dev, series, s)
      }
    }
    for (const a of [...open.values()]) if (a.rule_id === ruleId && a.state === 'resolved' && (deviceId === null || a.device_id === deviceId)) open.delete(a.id)
    dispatch(batch, now)
  }

  /** Acknowledged: no more repeats; the channels that heard of it hear who took it. */
  function acknowledge(a: AlertRow, by: string, note: string) {
    const now = clock.now()
    a.ack_by = by
    a.ack_at = now
    a.ack_note = note
    store.transaction(() => {
      store.updateAlert(a)
      event(a, 'acknowledged', now, { by, note: note || null })
    })
    groups.drop((i) => i.alert.id === a.id)
    held.delete(a.id)
    const cr = clients.get(a.client_id)
    const rule = cr?.byId.get(a.rule_id)
    deps.events.publish(a.client_id, 'alert.acknowledged', {
      alert: view(a, ruleRef(a.client_id, a.rule_id), deviceRef(a.client_id, a.device_id), cr ? isSilenced(cr, a) : false),
    })
    if (cr && rule && a.last_notified_at !== null)
      send(cr, [{ kind: 'acknowledged', alert: a, rule, device: deviceRef(a.client_id, a.device_id), behind: [] }], now)
  }

  return {
    boot,
    retire,
    acknowledge,
    reload,
    observe,
    ensureDefaults,
    dispatch,
    send,
    apply,
    resolve,
    fire,
    start,
    event,
    publish,
    isSilenced,
    scoped,
    runtime,
    seriesOf,
    deviceRef,
    ruleRef,
    context,
    clients,
    devices,
    open,
    groups,
    silencedNoted,
    held,
    bootAt,
    lastSampleAt: () => lastSampleAt,
    deps,
    interval: (dev: DeviceRuntime) => dev.interval ?? DEFAULT_INTERVAL_MS,
  }
}
