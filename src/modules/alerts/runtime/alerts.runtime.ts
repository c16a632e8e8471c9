import type { AlertView, Severity } from '../alerts.model'
import type { AlertRow } from '../alerts.store'
import { view } from '../alerts.view'
import { indexClient } from './alerts.compiled-rules'
import { dispatch, send } from './alerts.dispatch'
import type { NoticeItem } from './alerts.notice-text'
import { observe } from './alerts.observe'
import { createState, deviceRef, deviceState, type AlertRuntimeDeps, type Observation, type Runtime } from './alerts.runtime-state'
import { follow, tick, track } from './alerts.tick'
import { cancel, isSilenced, publish, resolve, type RuleRef } from './alerts.transitions'
import { createTurns } from './alerts.turns'

/** the link's topic: a client's rules, overrides, silences, settings or gateways changed on one hub */
export const RULES_CHANGED_TOPIC = 'alerts.rules'

/**
 * The alert runtime: every client's rules compiled in memory, the state of each (rule, device,
 * series) not at rest, the open alerts and the notices waiting, behind these verbs. It hears
 * observations (metric samples on the ingest path, any other source the same way) and ticks
 * (the `alerts.evaluate` job); the services tell it when rules change (reload, retire) and
 * when someone acknowledges. Its state is its own: nothing else reads it. The verbs that change
 * it take turns (alerts.turns.ts): an account's one at a time in the order called, the tick's
 * alone; `settled` waits for those already called.
 */
export function createAlertRuntime(deps: AlertRuntimeDeps) {
  const rt: Runtime = { deps, state: createState(deps.clock.now()) }
  const { store, peers } = deps
  const { state } = rt
  const turns = createTurns()

  async function compile(clientId: string): Promise<void> {
    const [rules, overrides, settings, silences, gateways] = await Promise.all([
      store.rulesOf(clientId),
      store.overridesOf(clientId),
      store.settings(clientId),
      store.silencesOf(clientId),
      store.dependenciesOf(clientId),
    ])
    const parents = new Map(gateways.map((d) => [d.device_id, d.parent_device_id]))
    const cr = indexClient(rules, overrides, settings, silences, parents, deps.selectors)
    state.clients.set(clientId, cr)
    for (const dev of state.devices.values()) {
      if (dev.clientId !== clientId) continue
      dev.tags = null
      // states of rules that are gone or disabled are dropped (their alerts were closed by retire)
      for (const ruleId of dev.series.keys()) if (!cr.byId.has(ruleId)) dev.series.delete(ruleId)
    }
  }

  // another hub changed a client's rules: compiled again here; messages lost, every client known
  peers?.on(RULES_CHANGED_TOPIC, (_body, clientId) => void turns.of(clientId, () => compile(clientId)).catch(logFailure))
  peers?.onMissed((clientId) => {
    const clients = clientId === null ? [...state.clients.keys()] : [clientId]
    for (const c of clients) void turns.of(c, () => compile(c)).catch(logFailure)
  })
  function logFailure(err: unknown) {
    deps.logger.error('alert rules could not be compiled again', { error: (err as Error).message })
  }

  async function ruleRef(clientId: string, ruleId: string): Promise<RuleRef> {
    const r = state.clients.get(clientId)?.byId.get(ruleId)
    if (r) return { id: r.id, name: r.name, severity: r.severity, metric: r.metric }
    const row = await store.rule(clientId, ruleId)
    return { id: ruleId, name: row?.name ?? ruleId, severity: (row?.severity ?? 'warning') as Severity, metric: row?.metric ?? null }
  }

  async function acknowledge(clientId: string, alertId: string, by: string, note: string): Promise<boolean> {
    const now = deps.clock.now()
    const row = await store.acknowledgeAlert(clientId, alertId, by, note, now)
    if (!row) return false
    const held = state.open.get(alertId)
    const a = held ? Object.assign(held, row) : row
    state.groups.drop((i) => i.alert.id === a.id)
    state.held.delete(a.id)
    const cr = state.clients.get(clientId) ?? null
    const rule = cr?.byId.get(a.rule_id)
    publish(rt, 'alert.acknowledged', a, await ruleRef(clientId, a.rule_id), cr)
    if (cr && rule && a.last_notified_at !== null)
      await send(rt, cr, [{ kind: 'acknowledged', alert: a, rule, device: deviceRef(rt, clientId, a.device_id), behind: [] }], now)
    return true
  }

  async function retire(clientId: string, ruleId: string, note: string, deviceId: string | null): Promise<void> {
    const cr = state.clients.get(clientId)
    const rule = cr?.byId.get(ruleId)
    if (!cr || !rule) return
    const now = deps.clock.now()
    // what another hub opened since this hub's last tick is closed too
    await follow(rt, now, clientId)
    const batch: NoticeItem[] = []
    for (const dev of state.devices.values()) {
      if (dev.clientId !== clientId || (deviceId !== null && dev.id !== deviceId)) continue
      const states = dev.series.get(ruleId)
      if (!states) continue
      for (const [series, s] of [...states]) {
        if (s.state === 'firing') await resolve(rt, batch, { cr, rule, dev, series }, s, null, now, note)
        else await cancel(rt, { cr, rule, dev, series }, s)
      }
    }
    for (const a of [...state.open.values()]) {
      if (a.rule_id === ruleId && a.state === 'resolved' && (deviceId === null || a.device_id === deviceId)) state.open.delete(a.id)
    }
    await dispatch(rt, batch, now)
  }

  return {
    /** Loads every client's rules and the open alerts (at start: firing alerts stay firing across a restart). */
    boot: (): Promise<void> =>
      turns.whole(async () => {
        for (const c of await store.alertingClients()) {
          if (c.defaultsMade) state.setUp.add(c.clientId)
          await compile(c.clientId)
        }
        const now = deps.clock.now()
        for (const a of await store.openAlerts()) track(rt, a, now)
      }),

    /** A new reading of a device (after it was stored): evaluated at once; a promise when changes are still being written. */
    observe: (o: Observation): Promise<void> | undefined => turns.atOnce(o.clientId, () => observe(rt, o)),

    /** Another hub stored a reading of this device: it is alive (its values are that hub's to evaluate). */
    heard(clientId: string, deviceId: string): void {
      const now = deps.clock.now()
      state.lastObservedAt = now
      deviceState(rt, clientId, deviceId).lastSeen = now
    },

    /** The time-driven part: offline devices, elapsed durations, forecasts, repeats, delayed and grouped notices. */
    tick: (): Promise<void> => turns.whole(() => tick(rt)),

    /** The client's rules, overrides, silences, settings or gateways changed: compiled again, here and on the other hubs. */
    reload: (clientId: string): Promise<void> =>
      turns.of(clientId, async () => {
        await compile(clientId)
        peers?.send(RULES_CHANGED_TOPIC, clientId, '{}')
      }),

    /** Whether this hub knows the client's default rules were made (the ingest path asks nothing more then). */
    isSetUp: (clientId: string): boolean => state.setUp.has(clientId),

    /** The defaults for a client that has none yet, made once per client across hubs (the first device that reports). */
    ensureDefaults: (clientId: string, make: (clientId: string) => Promise<boolean>): Promise<void> =>
      state.setUp.has(clientId)
        ? Promise.resolve()
        : turns.of(clientId, async () => {
            if (state.setUp.has(clientId)) return
            const made = await make(clientId)
            state.setUp.add(clientId)
            await compile(clientId)
            if (made) peers?.send(RULES_CHANGED_TOPIC, clientId, '{}')
          }),

    /**
     * Closes what a rule had open before it is deleted, disabled or changed (for one device, or
     * all): firing alerts resolve with a note, pending ones go.
     */
    retire: (clientId: string, ruleId: string, note: string, deviceId: string | null = null): Promise<void> =>
      turns.of(clientId, () => retire(clientId, ruleId, note, deviceId)),

    /** Acknowledged: no more repeats; the channels that heard of it hear who took it. False when there is no such open alert. */
    acknowledge: (clientId: string, alertId: string, by: string, note: string): Promise<boolean> =>
      turns.of(clientId, () => acknowledge(clientId, alertId, by, note)),

    /** The alert as stored (every change is written before it is told, on whichever hub made it); null when it is not this client's. */
    current: (clientId: string, alertId: string): Promise<AlertRow | null> => store.alert(clientId, alertId),

    /** The alert as the API and the events show it: its rule and device by name, and whether a silence covers it now. */
    async present(row: AlertRow): Promise<AlertView> {
      const cr = state.clients.get(row.client_id)
      return view(row, await ruleRef(row.client_id, row.rule_id), deviceRef(rt, row.client_id, row.device_id), cr ? isSilenced(rt, cr, row) : false)
    },

    /** A rule's name and severity, for history rows (a deleted rule keeps its id as its name). */
    ruleRef,

    /** Resolves once what was called before it has run (tests, and a hub stopping). */
    settled: (): Promise<void> => turns.whole(async () => {}),
  }
}

export type AlertRuntime = ReturnType<typeof createAlertRuntime>
