import type { AppContext } from '../context'
import { systemTimers, type Timers } from '../lib/timers'
import type { RenderEnv } from '../modules/channels/channels.kind-spec'
import type { ChannelsDeps } from '../modules/channels/channels.service'
import { channelClaimSource, createChannelsStore } from '../modules/channels/channels.store'
import { createChannelsStorePg } from '../modules/channels/channels.store.pg'
import { nodemailerTransport, type MailTransport } from '../modules/channels/channels.transport'
import { channelJob, createChannelsWorker, type ChannelsWorkerOptions } from '../modules/channels/channels.worker'
import { sqliteClaims } from '../modules/deliveries/deliveries.claim'
import { pgClaims, pgDueClaims } from '../modules/deliveries/deliveries.due.pg'
import { PG_QUEUES } from '../modules/deliveries/deliveries.claim.pg'
import { onEngine } from './engine'
import { createSendNowLimit } from '../modules/deliveries/deliveries.limit'
import { VERSION } from '../version'
import type { IdentityModules } from './identity'
import { firingCounts, forgetSubject } from '../modules/alerts/alerts.instances.service'
import type { AlertsDeps } from '../modules/alerts/alerts.ports'
import type { AlertDevice, AlertDevices, Notify } from '../modules/alerts/runtime/alerts.runtime-ports'
import { observeSample } from '../modules/alerts/alerts.rules.service'
import { createAlertsStore } from '../modules/alerts/alerts.store'
import { createAlertsStorePg } from '../modules/alerts/alerts.store.pg'
import type { PeerLink } from '../lib/peer-link'
import { createAlertRuntime } from '../modules/alerts/runtime/alerts.runtime'
import { compileSelector, type SelectorCompiler } from '../modules/alerts/runtime/alerts.selectors'
import { compileContainerSelector } from '../modules/containers/containers.selectors'
import { compileDiskSelector } from '../modules/disks/disks.selectors'
import { deviceSummaries, findDevice, parseTags } from '../modules/devices/devices.service'
import { fieldSeriesOf } from '../modules/metrics/metrics.field-series'
import type { FleetModules } from './fleet'
import type { Hooks } from './hooks'
import type { MonitoringModules } from './monitoring'

/** How long one delivery attempt may take, connection to answer. */
const CHANNEL_TIMEOUT_MS = 10_000
/** notification channels one account may have */
const MAX_CHANNELS = 100
/**
 * Channel deliveries in flight: 32 in all, 8 per account, 4 per channel. An account whose
 * services never answer holds at most its 8 slots for the deadline; everyone else's go out beside it.
 */
const CHANNEL_CAPS = { total: 32, perAccount: 8, perDestination: 4 }

/** What a test may swap in the channels module. */
export interface ChannelsOverrides {
  timers?: Timers
  /** the SMTP transport factory; default nodemailer's */
  mail?: MailTransport
  /** fixed API hosts (Pushover, Telegram) pointed at local fakes */
  apiBase?: RenderEnv['apiBase']
}

/**
 * Notification channels: their settings, the durable delivery queue and its worker. The
 * worker is built here and started by whoever runs the server (src/cli/serve.ts), so a test
 * app or a CLI command never sends on its own.
 */
export function wireChannels(ctx: AppContext, identity: IdentityModules, overrides: ChannelsOverrides = {}) {
  let wake: ChannelsDeps['wake'] = () => {}
  const channels: ChannelsDeps = {
    store: onEngine(ctx, createChannelsStore, createChannelsStorePg),
    clock: ctx.clock,
    logger: ctx.logger,
    secretKey: ctx.secretKey,
    transport: {
      outbound: ctx.outbound,
      mail: overrides.mail ?? nodemailerTransport,
      timeoutMs: CHANNEL_TIMEOUT_MS,
      clientName: new URL(ctx.config.siteUrl).hostname,
      now: () => ctx.clock.now(),
    },
    allowPrivate: ctx.config.outbound.allowPrivate,
    allowLocal: ctx.config.outbound.allowLocal,
    isOperatorClient: (clientId) => identity.directory.isOperatorClient(clientId),
    env: { version: VERSION, apiBase: overrides.apiBase ?? {} },
    wake: (clientId, channelIds) => wake(clientId, channelIds),
    maxChannels: MAX_CHANNELS,
    sendNow: createSendNowLimit(ctx.clock),
  }
  // one hub on SQLite claims in its process; hubs on PostgreSQL claim with leases, so none sends a delivery another sends
  const claiming = onEngine<Pick<ChannelsWorkerOptions, 'claims' | 'unclaimAtStart'>>(
    ctx,
    (sqlite) => {
      const source = channelClaimSource(sqlite)
      const take = (id: string) => {
        const row = source.take(id)
        return row ? channelJob(row) : null
      }
      const transaction = sqlite.transaction(<T>(fn: () => T) => fn()) as <T>(fn: () => T) => T
      return { claims: sqliteClaims({ ...source, take }, transaction), unclaimAtStart: true }
    },
    (sql) => ({
      claims: pgClaims(pgDueClaims(sql, PG_QUEUES.channels), async (claimed) => (await channels.store.deliveriesIn(claimed.map((c) => c.id))).map(channelJob)),
      unclaimAtStart: false,
    }),
  )
  const worker = createChannelsWorker(channels, { timers: overrides.timers ?? systemTimers, caps: CHANNEL_CAPS, ...claiming })
  wake = (account, destinations) => worker.wake({ account, destinations })
  return { channels, channelsWorker: worker }
}

export type ChannelsModules = ReturnType<typeof wireChannels>

/** How a rule's metric is read: the other sources' selectors first, each saying null when the metric is not theirs. */
const selectors: SelectorCompiler = (metric) => compileContainerSelector(metric) ?? compileDiskSelector(metric) ?? compileSelector(metric)

/** What the alerts module needs from the groups around it. */
export interface AlertingPorts {
  /** where notices go: the channels' durable queue, or a test's listener */
  notify: Notify
  /** whether channel ids named by rules and routing are the client's */
  channels: AlertsDeps['channels']
  /** alert subjects beside devices (service checks): their selectors, names and tags */
  subjects?: AlertSubjects
  /** the other hubs (several on one PostgreSQL): rule changes and the samples they store */
  peers?: PeerLink
}

/** Another source of alert subjects than devices: its selector compiler (chained before the metric one) and its subjects. */
export interface AlertSubjects {
  selectors: (next: SelectorCompiler) => SelectorCompiler
  find(clientId: string, id: string): AlertDevice | null
}

/**
 * Alert rules: the runtime hears every stored sample (the sampleStored hook) and the
 * `alerts.evaluate` job; it publishes alert.* events on the bus and hands grouped notices to
 * `notify`. With several hubs, each hub's runtime evaluates the samples it stores, hears of the
 * others' (a device alive on another hub is not offline here) and of their rule changes; each
 * transition is a conditional write in the database that one hub wins (docs/alerts.md).
 */
export function wireAlerts(
  ctx: AppContext,
  identity: IdentityModules,
  fleet: FleetModules,
  monitoring: MonitoringModules,
  hooks: Hooks,
  { notify, channels, subjects, peers }: AlertingPorts,
) {
  const devices = fleet.devices
  const toAlertDevice = (d: { id: string; name: string | null; hostname: string | null; tags: string[]; lastSeenAt: number | null }): AlertDevice => ({
    id: d.id,
    name: d.name ?? d.hostname ?? d.id,
    tags: d.tags,
    lastSeenAt: d.lastSeenAt,
  })
  const alertDevices: AlertDevices = {
    find: (clientId, deviceId) => {
      const row = findDevice(devices, clientId, deviceId)
      return row ? toAlertDevice({ ...row, tags: parseTags(row.tags), lastSeenAt: row.last_seen_at }) : (subjects?.find(clientId, deviceId) ?? null)
    },
    list: (clientId) => deviceSummaries(devices, clientId).map(toAlertDevice),
  }
  const store = onEngine(ctx, createAlertsStore, createAlertsStorePg)
  const runtime = createAlertRuntime({
    store,
    clock: ctx.clock,
    logger: ctx.logger,
    events: ctx.events,
    notify,
    siteUrl: ctx.config.siteUrl,
    devices: alertDevices,
    // awaited on this hub's engine: on PostgreSQL the hourly tier is in the database every hub writes
    metrics: { diskTrend: (clientId, deviceId, hours) => fieldSeriesOf(monitoring.metrics, clientId, deviceId, 'disk_used_percent', hours) },
    selectors: subjects ? subjects.selectors(selectors) : selectors,
    peers,
  })
  const failed = (what: string) => (err: unknown) => ctx.logger.error(what, { error: (err as Error).message })
  void runtime.boot().catch(failed('the alert runtime could not load its rules and open alerts'))
  const alerts: AlertsDeps = {
    store,
    clock: ctx.clock,
    logger: ctx.logger,
    runtime,
    devices: alertDevices,
    users: { emailOf: (userId) => identity.directory.emailOf(userId) },
    channels,
    selectors: subjects ? subjects.selectors(selectors) : selectors,
  }
  // a deleted device's alerts go with it (alerts name their subject without a foreign key)
  hooks.deviceDeleted.listen(
    (clientId, deviceId) => void forgetSubject(alerts, clientId, deviceId).catch(failed("a deleted device's alerts could not be removed")),
  )
  hooks.sampleStored.listen((sample) => void observeSample(alerts, sample))
  // a sample another hub stored: the device is alive (that hub evaluates its values)
  ctx.events.subscribePeers((clientId, type, data) => {
    const deviceId = (data as { device_id?: unknown } | null)?.device_id
    if (type === 'sample' && typeof deviceId === 'string') runtime.heard(clientId, deviceId)
  })
  return {
    alerts,
    alertsTick: runtime.tick,
    /** for the fleet overview: firing alerts per device */
    alertsFiring: (clientId: string) => firingCounts(alerts, clientId),
  }
}

export type AlertingModules = ReturnType<typeof wireAlerts>
