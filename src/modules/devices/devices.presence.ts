import { toIso, type Clock } from '../../lib/clock'
import { deviceStatus, type DeviceStatus } from './devices.status'

/** A device moved from one status to another: the data of a `device.status` event. */
export interface DeviceStatusChange {
  device_id: string
  status: DeviceStatus
  previous: DeviceStatus
  last_seen_at: string | null
}

/** A device as the database knows it: whose, and when it last reported (server time, ms). */
export interface PresenceRow {
  id: string
  clientId: string
  lastSeenAt: number | null
}

export interface PresenceDeps {
  clock: Clock
  /** every device with its stored last report: read when made (the start) and by every sweep */
  devices(): PresenceRow[]
  /** told of each change of a device's status, synchronously */
  changed(clientId: string, change: DeviceStatusChange): void
}

interface Entry {
  clientId: string
  status: DeviceStatus
  /** server time of the last report; the stored last_seen_at lags it by up to a few seconds */
  lastSeen: number | null
  /** the newest recorded_at seen, and the last few steps between them */
  lastTs: number | null
  gaps: number[]
}

/** how many steps between reports the interval is the median of: one late or replayed report does not move it */
const GAPS_KEPT = 5
/** steps shorter than this are the two parts of one batch, or a retry: not the reporting interval */
const MIN_GAP_MS = 1_000

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/**
 * Each device's status, kept in memory and told to `changed` as it moves: to online at once
 * when a sample arrives (`seen`, on the ingest path: a map lookup, no I/O), and to stale,
 * offline or back by `sweep` (the devices.status job), which also picks up devices made or
 * removed elsewhere. A device's interval is measured from the recorded_at of its own samples
 * (the median of its last few steps), so nothing is stored for it and a restart starts
 * measuring again, with the default interval until two samples have come.
 */
export function devicePresence(deps: PresenceDeps) {
  const entries = new Map<string, Entry>()

  const intervalOf = (e: Entry) => (e.gaps.length ? median(e.gaps) : null)
  const fresh = (clientId: string, lastSeen: number | null): Entry => ({
    clientId,
    lastSeen,
    lastTs: null,
    gaps: [],
    status: deviceStatus(lastSeen, null, deps.clock.now()),
  })

  function move(deviceId: string, e: Entry, status: DeviceStatus) {
    if (status === e.status) return
    const previous = e.status
    e.status = status
    deps.changed(e.clientId, { device_id: deviceId, status, previous, last_seen_at: e.lastSeen === null ? null : toIso(e.lastSeen) })
  }

  /**
   * Every device's status as its stored last_seen_at says, told to no one: at start, so that a
   * device's first sample after a restart is a change from what it was. A database that cannot
   * be read then (damaged: the service still starts and says so) is read again on next use.
   */
  let loaded = false
  const load = () => {
    if (loaded) return
    try {
      for (const row of deps.devices()) if (!entries.has(row.id)) entries.set(row.id, fresh(row.clientId, row.lastSeenAt))
      loaded = true
    } catch {
      // the sweep reports the failure (its job fails); the ingest path must not
    }
  }
  load()

  return {
    /** a sample of the device was stored now, recorded at `ts` */
    seen(clientId: string, deviceId: string, ts: number) {
      load()
      let e = entries.get(deviceId)
      if (!e) entries.set(deviceId, (e = fresh(clientId, null)))
      e.lastSeen = deps.clock.now()
      // a replayed older sample says nothing about the interval
      if (e.lastTs === null || ts > e.lastTs) {
        const gap = e.lastTs === null ? 0 : ts - e.lastTs
        if (gap >= MIN_GAP_MS) {
          e.gaps.push(gap)
          if (e.gaps.length > GAPS_KEPT) e.gaps.shift()
        }
        e.lastTs = ts
      }
      move(deviceId, e, 'online')
    },
    /** a new device: it has never reported */
    registered(clientId: string, deviceId: string) {
      load()
      if (!entries.has(deviceId)) entries.set(deviceId, fresh(clientId, null))
    },
    deleted(deviceId: string) {
      entries.delete(deviceId)
    },
    /** every device's status now; changes are told, devices gone are forgotten */
    sweep() {
      const now = deps.clock.now()
      const present = new Set<string>()
      for (const row of deps.devices()) {
        present.add(row.id)
        const e = entries.get(row.id)
        if (!e) {
          entries.set(row.id, fresh(row.clientId, row.lastSeenAt))
          continue
        }
        if (row.lastSeenAt !== null && (e.lastSeen === null || row.lastSeenAt > e.lastSeen)) e.lastSeen = row.lastSeenAt
        move(row.id, e, deviceStatus(e.lastSeen, intervalOf(e), now))
      }
      for (const id of entries.keys()) if (!present.has(id)) entries.delete(id)
      loaded = true
    },
    /** the device's measured reporting interval in ms, null until two samples have come */
    intervalMs(deviceId: string): number | null {
      const e = entries.get(deviceId)
      return e ? intervalOf(e) : null
    },
    status: (deviceId: string): DeviceStatus | null => entries.get(deviceId)?.status ?? null,
  }
}

export type DevicePresence = ReturnType<typeof devicePresence>
