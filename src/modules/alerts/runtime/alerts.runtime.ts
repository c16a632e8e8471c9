import type { AlertView, Severity } from '../alerts.model'
import type { AlertRow } from '../alerts.store'
import { view } from '../alerts.view'
import { indexClient } from './alerts.compiled-rules'
import { dispatch, send } from './alerts.dispatch'
import type { NoticeItem } from './alerts.notice-text'
import { observe } from './alerts.observe'
import { createState, deviceRef, deviceState, seriesOf, type AlertRuntimeDeps, type Observation, type Runtime } from './alerts.runtime-state'
import { tick } from './alerts.tick'
import { cancel, isSilenced, publish, resolve, type RuleRef } from './alerts.transitions'

export type { AlertRuntimeDeps, Observation } from './alerts.runtime-state'

/**
 * The alert runtime: every client's rules compiled in memory, the state of each (rule, device,
 * series) not at rest, the open alerts and the notices waiting, behind these verbs. It hears
 * observations (metric samples on the ingest path, any other source the same way) and ticks
 * (the `alerts.evaluate` job); the services tell it when rules change (reload, retire) and
 * when someone acknowledges. Its state is its own: nothing else reads it.
 */
export function createAlertRuntime(deps: AlertRuntimeDeps) {
  const rt: Runtime = { deps, state: createState(deps.clock.now()) }
  const { store } = deps
  const { state } = rt

  function reload(clientId: string): void {
    const parents = new Map(store.dependenciesOf(clientId).map((d) => [d.device_id, d.parent_device_id]))
    const cr = indexClient(
      store.rulesOf(clientId),
      store.overridesOf(clientId),
      store.settings(clientId) ?? null,
      store.silencesOf(clientId),
      parents,
      deps.selectors,
    )
    state.clients.set(clientId, cr)
    for (const dev of state.devices.values()) {
      if (dev.clientId !== clientId) continue
      dev.tags = null
      // states of rules that are gone or disabled are dropped (their alerts were closed by retire)
      for (const ruleId of dev.series.keys()) if (!cr.byId.has(ruleId)) dev.series.delete(ruleId)
    }
  }

  function ruleRef(clientId: string, ruleId: string): RuleRef {
    const r = state.clients.get(clientId)?.byId.get(ruleId)
    if (r) return { id: r.id, name: r.name, severity: r.severity, metric: r.metric }
    const row = store.rule(clientId, ruleId)
    return { id: ruleId, name: row?.name ?? ruleId, severity: (row?.severity ?? 'warning') as Severity, metric: row?.metric ?? null }
  }

  /** The alert as the runtime holds it (open) or as stored; a copy, null when it is not this client's. */
  function current(clientId: string, alertId: string): AlertRow | null {
    const row = state.open.get(alertId) ?? store.alert(clientId, alertId)
    return row && row.client_id === clientId ? { ...row } : null
  }

  return {
    /** Loads every client's rules and the open alerts (at start: firing alerts stay firing across a restart). */
    boot(): void {
      const byClient = new Set<string>()
      for (const r of store.allRules()) byClient.add(r.client_id)
      for (const s of store.allSettings()) {
        byClient.add(s.client_id)
        if (s.defaults_created_at !== null) state.setUp.add(s.client_id)
      }
      for (const c of byClient) reload(c)
      const now = deps.clock.now()
      for (const a of store.openAlerts()) {
        state.open.set(a.id, a)
        if (a.state === 'resolved') continue
        const dev = deviceState(rt, a.client_id, a.device_id)
        seriesOf(dev, a.rule_id).set(a.series, {
          state: a.state as 'pending' | 'firing',
          alertId: a.id,
          since: a.started_at,
          value: a.value ?? 0,
          lastAt: now,
          misses: 0,
        })
      }
    },

    /** A new reading of a device (after it was stored): evaluates the client's rules that watch its source. */
    observe: (o: Observation): void => observe(rt, o),

    /** The time-driven part: offline devices, elapsed durations, forecasts, repeats, delayed and grouped notices. */
    tick: (): void => tick(rt),

    /** The client's rules, overrides, silences, settings or gateways changed: compiled again. */
    reload,

    /** The defaults for a client that has none yet, made once per client (the first device that reports). */
    ensureDefaults(clientId: string, make: (clientId: string) => void): void {
      if (state.setUp.has(clientId)) return
      make(clientId)
      state.setUp.add(clientId)
      reload(clientId)
    },

    /**
     * Closes what a rule had open before it is deleted, disabled or changed (for one device, or
     * all): firing alerts resolve with a note, pending ones go.
     */
    retire(clientId: string, ruleId: string, note: string, deviceId: string | null = null): void {
      const cr = state.clients.get(clientId)
      const rule = cr?.byId.get(ruleId)
      if (!cr || !rule) return
      const now = deps.clock.now()
      const batch: NoticeItem[] = []
      for (const dev of state.devices.values()) {
        if (dev.clientId !== clientId || (deviceId !== null && dev.id !== deviceId)) continue
        const states = dev.series.get(ruleId)
        if (!states) continue
        for (const [series, s] of [...states]) {
          if (s.state === 'firing') resolve(rt, batch, { cr, rule, dev, series }, s, null, now, note)
          else cancel(rt, { cr, rule, dev, series }, s)
        }
      }
      for (const a of [...state.open.values()]) {
        if (a.rule_id === ruleId && a.state === 'resolved' && (deviceId === null || a.device_id === deviceId)) state.open.delete(a.id)
      }
      dispatch(rt, batch, now)
    },

    /** Acknowledged: no more repeats; the channels that heard of it hear who took it. False when there is no such alert. */
    acknowledge(clientId: string, alertId: string, by: string, note: string): boolean {
      const a = state.open.get(alertId) ?? store.alert(clientId, alertId)
      if (!a || a.client_id !== clientId) return false
      const now = deps.clock.now()
      a.ack_by = by
      a.ack_at = now
      a.ack_note = note
      store.transaction(() => {
        store.updateAlert(a)
        store.addEvent(clientId, { alert_id: a.id, at: now, type: 'acknowledged', value: null, by, note: note || null })
      })
      state.groups.drop((i) => i.alert.id === a.id)
      state.held.delete(a.id)
      const cr = state.clients.get(clientId) ?? null
      const rule = cr?.byId.get(a.rule_id)
      publish(rt, 'alert.acknowledged', a, ruleRef(clientId, a.rule_id), cr)
      if (cr && rule && a.last_notified_at !== null)
        send(rt, cr, [{ kind: 'acknowledged', alert: a, rule, device: deviceRef(rt, clientId, a.device_id), behind: [] }], now)
      return true
    },

    current,

    /** The alert as the API and the events show it: its rule and device by name, and whether a silence covers it now. */
    present(row: AlertRow): AlertView {
      const cr = state.clients.get(row.client_id)
      return view(row, ruleRef(row.client_id, row.rule_id), deviceRef(rt, row.client_id, row.device_id), cr ? isSilenced(rt, cr, row) : false)
    },

    /** A rule's name and severity, for history rows (a deleted rule keeps its id as its name). */
    ruleRef,
  }
}

export type AlertRuntime = ReturnType<typeof createAlertRuntime>
