import type { Clock } from '../../../lib/clock'
import type { EventBus } from '../../../lib/event-bus'
import type { Logger } from '../../../lib/logger'
import type { PeerLink } from '../../../lib/peer-link'
import type { AlertDevices, AlertMetrics, Notify } from './alerts.runtime-ports'
import type { AlertRow, AlertsStore } from '../alerts.store'
import type { ClientRules } from './alerts.compiled-rules'
import type { SeriesState } from './alerts.evaluator'
import { NoticeGroups } from './alerts.notice-groups'
import type { NoticeItem } from './alerts.notice-text'
import type { SelectorCompiler } from './alerts.selectors'
import type { ScopedDevice } from './alerts.silence-windows'

/**
 * One reading of a device from a source: a metric sample today ('hardware', 'network'), a
 * service check's result or a container's state tomorrow. Every source goes through the same
 * path: the rules that watch one of its values raise, hold, silence, group and resolve alerts.
 */
export interface Observation {
  clientId: string
  deviceId: string
  /** what produced it; rules watch a source through their selector */
  source: string
  /** when it was taken (the device's clock) */
  ts: number
  values: Record<string, unknown>
}

/** What the runtime needs from the rest of the hub. */
export interface AlertRuntimeDeps {
  store: AlertsStore
  clock: Clock
  logger: Logger
  events: Pick<EventBus, 'publish'>
  notify: Notify
  devices: AlertDevices
  metrics: AlertMetrics
  /** how a rule's `metric` is read from observations (the metric selectors; a test adds its own sources) */
  selectors: SelectorCompiler
  /** the portal's address for links in notices; null leaves them out */
  siteUrl: string | null
  /** the other hubs (several on one PostgreSQL): a client's rules changed on one are compiled again on each */
  peers?: Pick<PeerLink, 'send' | 'on' | 'onMissed'>
}

/** What the runtime keeps of one device between observations. */
export interface DeviceRuntime {
  id: string
  clientId: string
  /** when the hub last heard from it (receipt time, so replays count as alive) */
  lastSeen: number | null
  lastTs: number | null
  interval: number | null
  /** the newest observation of each source: what an alert's context shows */
  last: Map<string, { ts: number; values: Record<string, unknown> }>
  /** rule id → series → state, for series not at rest */
  series: Map<string, Map<string, SeriesState>>
  tags: string[] | null
  tagsAt: number
  forecastAt: number
}

/**
 * Everything the runtime holds between calls, in one place: each client's compiled rules, the
 * devices' series not at rest, the open alerts, and the notices waiting. Only the runtime's
 * own files read or change it; the rest of the module goes through the façade.
 */
export interface RuntimeState {
  clients: Map<string, ClientRules>
  /** clients whose default rules were made (so the ingest path asks the database once) */
  setUp: Set<string>
  devices: Map<string, DeviceRuntime>
  /** pending and firing alerts, and resolved ones whose recovery notice waits */
  open: Map<string, AlertRow>
  groups: NoticeGroups<NoticeItem>
  /** alerts whose notice a silence held, with the timeline told once */
  silencedNoted: Set<string>
  /** alerts whose notice waits in a grouping window */
  held: Set<string>
  bootAt: number
  lastObservedAt: number | null
  /** offline windows are counted from here at the earliest: the hub's start, or its uplink coming back */
  graceFrom: number
  /** since when no device has reported though several were (the hub's own network is down) */
  blindSince: number | null
}

/** The runtime: its dependencies and its state, handed to each of its parts. */
export interface Runtime {
  deps: AlertRuntimeDeps
  state: RuntimeState
}

export function createState(now: number): RuntimeState {
  return {
    clients: new Map(),
    setUp: new Set(),
    devices: new Map(),
    open: new Map(),
    groups: new NoticeGroups<NoticeItem>(),
    silencedNoted: new Set(),
    held: new Set(),
    bootAt: now,
    lastObservedAt: null,
    graceFrom: now,
    blindSince: null,
  }
}

export function deviceState(rt: Runtime, clientId: string, deviceId: string): DeviceRuntime {
  let dev = rt.state.devices.get(deviceId)
  if (!dev) {
    dev = {
      id: deviceId,
      clientId,
      lastSeen: null,
      lastTs: null,
      interval: null,
      last: new Map(),
      series: new Map(),
      tags: null,
      tagsAt: 0,
      forecastAt: 0,
    }
    rt.state.devices.set(deviceId, dev)
  }
  return dev
}

export function seriesOf(dev: DeviceRuntime, ruleId: string): Map<string, SeriesState> {
  let m = dev.series.get(ruleId)
  if (!m) dev.series.set(ruleId, (m = new Map()))
  return m
}

/** device tags are looked up again after this long (tag scopes follow portal edits within it) */
const TAGS_TTL_MS = 60_000

/** The device's tags, only when some scope needs them; refreshed after TAGS_TTL_MS. */
export function scoped(rt: Runtime, cr: ClientRules, dev: DeviceRuntime, now: number): ScopedDevice {
  if (cr.needsTags && (dev.tags === null || now - dev.tagsAt > TAGS_TTL_MS)) {
    dev.tags = rt.deps.devices.find(dev.clientId, dev.id)?.tags ?? []
    dev.tagsAt = now
  }
  return { id: dev.id, tags: dev.tags ?? [] }
}

export function deviceRef(rt: Runtime, clientId: string, deviceId: string) {
  const d = rt.deps.devices.find(clientId, deviceId)
  return { id: deviceId, name: d?.name ?? deviceId }
}
