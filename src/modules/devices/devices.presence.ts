import { toIso, type Clock } from '../../lib/clock'
import { deviceStatus, type DeviceStatus } from './devices.status'

/** A device moved from one status to another: the data of a `device.status` event. */
export interface DeviceStatusChange {
  device_id: string
  status: DeviceStatus
  previous: DeviceStatus
  last_seen_at: string | null
}

/** A device as the database knows it: whose, the key of its samples, and when it last reported (server time, ms). */
export interface PresenceRow {
  id: string
  clientId: string
  seq: number | null
  lastSeenAt: number | null
}

export interface PresenceDeps {
  clock: Clock
  /** every device with its stored last report: read when made (the start) and by every sweep */
  devices(): Promise<PresenceRow[]>
  /**
   * each device's reporting interval in ms (null: not known yet), measured from its own stored
   * samples: the one the fleet overview shows, so the two always agree
   */
  intervals(seqs: number[]): Map<number, number | null>
  /** told of each change of a device's status, synchronously */
  changed(clientId: string, change: DeviceStatusChange): void
}

interface Entry {
  clientId: string
  status: DeviceStatus
  /** server time of the last report; the stored last_seen_at lags it by up to a few seconds */
  lastSeen: number | null
  /** as the last sweep measured it */
  intervalMs: number | null
}

/**
 * Each device's status, kept in memory and told to `changed` as it moves: to online at once
 * when a sample arrives (`seen`, on the ingest path: a map lookup, no I/O), and to stale,
 * offline or back by `sweep` (the devices.status job), against the device's own interval, and
 * picking up devices made or removed elsewhere.
 */
export function devicePresence(deps: PresenceDeps) {
  const entries = new Map<string, Entry>()
  const fresh = (clientId: string, lastSeen: number | null): Entry => ({
    clientId,
    lastSeen,
    intervalMs: null,
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
   * be read then (damaged or away: the service still starts and says so) is read again on next use.
   * A sample that arrives while the read is out counts from "never"; the read does not undo it.
   */
  let loaded = false
  let loading: Promise<void> | null = null
  const load = (): Promise<void> => {
    if (loaded) return Promise.resolve()
    if (loading) return loading
    let rows: Promise<PresenceRow[]>
    try {
      rows = deps.devices()
    } catch (err) {
      rows = Promise.reject(err)
    }
    loading = rows.then(
      (read) => {
        for (const row of read) if (!entries.has(row.id)) entries.set(row.id, fresh(row.clientId, row.lastSeenAt))
        loaded = true
        loading = null
      },
      () => {
        // the sweep reports the failure (its job fails); the ingest path must not
        loading = null
      },
    )
    return loading
  }
  void load()

  return {
    /** a sample of the device was stored now */
    seen(clientId: string, deviceId: string) {
      if (!loaded) void load()
      let e = entries.get(deviceId)
      if (!e) entries.set(deviceId, (e = fresh(clientId, null)))
      e.lastSeen = deps.clock.now()
      move(deviceId, e, 'online')
    },
    /** a new device: it has never reported */
    registered(clientId: string, deviceId: string) {
      if (!loaded) void load()
      if (!entries.has(deviceId)) entries.set(deviceId, fresh(clientId, null))
    },
    deleted(deviceId: string) {
      entries.delete(deviceId)
    },
    /** resolves once the stored statuses are read (or their read failed) */
    ready: (): Promise<void> => load(),
    /** every device's status now; changes are told, devices gone are forgotten */
    async sweep() {
      const rows = await deps.devices()
      const now = deps.clock.now()
      const intervals = deps.intervals(rows.flatMap((r) => (r.seq === null ? [] : [r.seq])))
      const present = new Set<string>()
      for (const row of rows) {
        present.add(row.id)
        const e = entries.get(row.id)
        if (!e) {
          entries.set(row.id, fresh(row.clientId, row.lastSeenAt))
          continue
        }
        if (row.lastSeenAt !== null && (e.lastSeen === null || row.lastSeenAt > e.lastSeen)) e.lastSeen = row.lastSeenAt
        e.intervalMs = row.seq === null ? null : (intervals.get(row.seq) ?? null)
        move(row.id, e, deviceStatus(e.lastSeen, e.intervalMs, now))
      }
      for (const id of entries.keys()) if (!present.has(id)) entries.delete(id)
      loaded = true
    },
    /** server time of the device's last report as this process saw it (the stored last_seen_at lags it by up to a few seconds) */
    lastSeen: (deviceId: string): number | null => entries.get(deviceId)?.lastSeen ?? null,
    /** the device's reporting interval in ms as the last sweep measured it (null: not known) */
    intervalMs: (deviceId: string): number | null => entries.get(deviceId)?.intervalMs ?? null,
    status: (deviceId: string): DeviceStatus | null => entries.get(deviceId)?.status ?? null,
  }
}

export type DevicePresence = ReturnType<typeof devicePresence>
