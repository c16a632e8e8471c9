import type { AppContext } from '../context'
import type { UserPrincipal } from '../http/principal'
import { toIso } from '../lib/clock'
import { systemTimers, type Timers } from '../lib/timers'
import { devicePresence } from '../modules/devices/devices.presence'
import { devicesLastSeen, findDevice } from '../modules/devices/devices.service'
import type { LiveDeps } from '../modules/live/live.service'
import { slotLimits, streamSlots } from '../modules/live/live.slots'
import { deviceIntervals } from '../modules/metrics/metrics.fleet'
import { hotRecord, hotValues } from '../modules/metrics/metrics.rows'
import type { FleetModules } from './fleet'
import type { Hooks, Lookups } from './hooks'
import type { MonitoringModules } from './monitoring'

/**
 * The live stream's sources and the stream itself: every newly stored sample, devices made and
 * removed, and each device's status as it changes are published on the app's event bus, which
 * GET /v1/events reads. The ingest path pays a map lookup, the event and its seq per sample here.
 */
export function wireLive(
  ctx: AppContext,
  fleet: FleetModules,
  monitoring: MonitoringModules,
  { hooks, lookups }: { hooks: Hooks; lookups: Lookups },
  timers: Timers = systemTimers,
) {
  const { events, clock } = ctx
  const devices = fleet.devices

  // one measure of each device's interval for its status everywhere: device answers, presence, fleet overview
  lookups.deviceIntervals.answer((seqs) => deviceIntervals(monitoring.metrics, seqs, clock.now()))
  const presence = devicePresence({
    clock,
    devices: () => devicesLastSeen(devices),
    intervals: lookups.deviceIntervals.ask,
    changed: (clientId, change) => events.publish(clientId, 'device.status', change),
  })
  lookups.deviceLastSeen.answer(presence.lastSeen)

  // told after the registration committed (a device's own or a redeemed enrolment's store call)
  hooks.deviceRegistered.listen((clientId, device) => {
    presence.registered(clientId, device.device_id)
    events.publish(clientId, 'device.registered', { device })
  })
  hooks.deviceDeleted.listen((clientId, deviceId) => {
    presence.deleted(deviceId)
    events.publish(clientId, 'device.deleted', { device_id: deviceId })
  })

  // status first: a device coming back is online before its sample arrives (this group listens before the alerts').
  // The event's data is made only when read (a stream of the client open, the other hubs): most samples reach no reader
  hooks.sampleStored.listen((s) => {
    presence.seen(s.clientId, s.deviceId)
    events.publishLazy(s.clientId, 'sample', () => ({
      device_id: s.deviceId,
      kind: s.kind,
      recorded_at: toIso(s.ts),
      values: s.hot ? hotRecord(s.kind, s.hot) : hotValues(s.kind, s.values),
    }))
  })

  // samples and devices another hub stored: this hub's statuses follow them as they follow its own
  events.subscribePeers((clientId, type, data) => {
    const d = (data ?? {}) as { device_id?: unknown; device?: { device_id?: unknown } }
    if (type === 'sample' && typeof d.device_id === 'string') presence.seen(clientId, d.device_id)
    else if (type === 'device.registered' && typeof d.device?.device_id === 'string') {
      presence.registered(clientId, d.device.device_id)
      // the client's "only device" this hub's ingest may have cached is no longer its only one
      devices.directory.heard(clientId)
    } else if (type === 'device.deleted' && typeof d.device_id === 'string') {
      presence.deleted(d.device_id)
      devices.directory.heard(clientId, d.device_id)
    }
  })

  const live: LiveDeps = {
    events,
    clock,
    timers,
    slots: streamSlots(slotLimits(ctx.config.liveMaxStreams)),
    devices: { exists: (clientId, deviceId) => findDevice(devices, clientId, deviceId) !== null },
    async stillValid(token: string, principal: UserPrincipal) {
      const now = await ctx.auth.verifyAccessToken(token)
      return now.kind === 'user' && now.userId === principal.userId && (await ctx.auth.memberRole(principal.userId, principal.clientId)) !== null
    },
  }
  return { live, presence }
}

export type LiveModules = ReturnType<typeof wireLive>
