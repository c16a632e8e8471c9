import type { SQL } from 'bun'
import type { Raw } from '../../db/pg/rows'
import type { Logger } from '../../lib/logger'
import type { PeerLink } from '../../lib/peer-link'
import { systemTimers, type Timers } from '../../lib/timers'
import type { DeviceLabels, DeviceRef, DeviceRow, DevicesStore, SqliteDevices } from './devices.store'
import { DEVICE_COLUMNS as deviceColumns, deviceRowPg } from './devices.store.pg'

/**
 * The devices as the other domains read them synchronously (their ports cannot await): on SQLite
 * its statements (`sqliteDevices`, with the ingest path's ref caches), on PostgreSQL a copy of
 * every device's row in this hub's memory (`pgDeviceDirectory`).
 */
export interface DeviceDirectory {
  byId(clientId: string, id: string): DeviceRow | null
  /** oldest first, ties by id */
  listForClient(clientId: string): DeviceRow[]
  cachedRef(clientId: string, id: string): DeviceRef | null
  cachedOnlyDevice(clientId: string): DeviceRef | null
  seqs(): number[]
  labels(clientId: string | null): DeviceLabels[]
  clientsWithDevices(): string[]
  /** the device reported at `at` (server time) */
  markSeen(seq: number, at: number): void
  /** after this hub changed or made the device (its row as now stored) */
  changed(row: DeviceRow): void
  /** after this hub deleted the device (`id`), or made one for the client */
  forget(clientId: string, id?: string): void
  /**
   * another hub made (no `id`) or deleted a device, as its event says: what is cached of it goes
   * (SQLite hubs sharing one file; a directory on PostgreSQL hears its own topic instead)
   */
  heard(clientId: string, id?: string): void
  /**
   * Before an answer that a device does not exist: the devices the caller may mean (`id`, or the
   * client's only one when null) read again from the database if this copy does not hold them.
   * Absent on SQLite, whose reads are the database's.
   */
  known?(clientId: string, id: string | null): Promise<void>
  /** at the hub's stop, before its database closes: writes what is kept to be written (PostgreSQL) */
  stop?(): Promise<void>
}

/** SQLite's statements as the directory: the reads are the database's, so nothing is kept beyond the ref caches. */
export function sqliteDeviceDirectory(devices: SqliteDevices): DeviceDirectory {
  return {
    byId: devices.byId,
    listForClient: devices.listForClient,
    cachedRef: devices.cachedRef,
    cachedOnlyDevice: devices.cachedOnlyDevice,
    seqs: devices.seqs,
    labels: devices.labels,
    clientsWithDevices: devices.clientsWithDevices,
    markSeen: devices.markSeen,
    changed: (row) => devices.forget(row.client_id, row.id),
    forget: devices.forget,
    heard: devices.forget,
  }
}

/** the hubs' link topic: a device made, changed or deleted on one hub, which the others read again */
export const DEVICE_CHANGED_TOPIC = 'device.changed'
/** how often the last reports seen are written, as one statement */
export const SEEN_FLUSH_MS = 30_000

export interface PgDirectoryDeps {
  sql: SQL
  store: Pick<DevicesStore, 'ref'>
  peers?: Pick<PeerLink, 'send' | 'on' | 'onMissed'> | null
  timers?: Timers
  logger?: Pick<Logger, 'error'>
}

const byAge = (a: DeviceRow, b: DeviceRow) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
const refOf = (r: DeviceRow): DeviceRef => ({ id: r.id, clientId: r.client_id, seq: r.seq })

/**
 * Every device's row in this hub's memory, for a hub on PostgreSQL: read whole at start (`ready`),
 * kept current by this hub's writes (`changed`, `forget`) and by the other hubs' (each write is
 * told over `peers`, and the hubs hearing it read that device again), read whole again when the
 * link says messages were missed. A device this copy has not heard of yet (made on another hub a
 * moment ago) is read on demand by `known`. Reports seen (`markSeen`) are kept here and written
 * every SEEN_FLUSH_MS in one statement.
 */
export function pgDeviceDirectory(deps: PgDirectoryDeps) {
  const { sql } = deps
  const timers = deps.timers ?? systemTimers
  const rows = new Map<string, DeviceRow>()
  const ofClient = new Map<string, Set<string>>()
  /** per device: bumped by every change heard, so that a read begun before one does not undo it */
  const versions = new Map<string, number>()
  let generation = 0
  /** seq → row, made on the first report after a change */
  let bySeq: Map<number, DeviceRow> | null = null
  const bump = (id: string) => versions.set(id, (versions.get(id) ?? 0) + 1)

  const put = (r: DeviceRow) => {
    const old = rows.get(r.id)
    if (old && old.client_id !== r.client_id) ofClient.get(old.client_id)?.delete(r.id)
    // a report this hub saw and has not written yet stays the newer one
    if (old?.last_seen_at != null && (r.last_seen_at === null || old.last_seen_at > r.last_seen_at)) r = { ...r, last_seen_at: old.last_seen_at }
    rows.set(r.id, r)
    bySeq = null
    let set = ofClient.get(r.client_id)
    if (!set) ofClient.set(r.client_id, (set = new Set()))
    set.add(r.id)
  }
  const drop = (id: string) => {
    const old = rows.get(id)
    if (!old) return
    rows.delete(id)
    bySeq = null
    const set = ofClient.get(old.client_id)
    set?.delete(id)
    if (set?.size === 0) ofClient.delete(old.client_id)
  }
  const list = (clientId: string): DeviceRow[] => {
    const ids = ofClient.get(clientId)
    if (!ids) return []
    const out: DeviceRow[] = []
    for (const id of ids) out.push(rows.get(id)!)
    return out.sort(byAge)
  }

  /** the device as stored now, into the copy (or out of it when gone), unless a newer change came meanwhile */
  async function reread(id: string) {
    const started = versions.get(id) ?? 0
    const gen = generation
    const [r]: Raw[] = await sql.unsafe(`SELECT ${deviceColumns} FROM devices WHERE id = $1`, [id])
    if ((versions.get(id) ?? 0) !== started || gen !== generation) return
    if (r) put(deviceRowPg(r))
    else drop(id)
  }

  /** reads and writes under way, for `idle` */
  const inFlight = new Set<Promise<unknown>>()
  const track = (p: Promise<unknown>) => {
    inFlight.add(p)
    void p.finally(() => inFlight.delete(p))
  }
  /** every device read again; a device changed while the read was out is read again after it */
  let loaded = false
  async function load() {
    const gen = ++generation
    const started = new Map(versions)
    const all: Raw[] = await sql.unsafe(`SELECT ${deviceColumns} FROM devices`)
    if (gen !== generation) return
    const before = new Map(rows)
    rows.clear()
    ofClient.clear()
    for (const r of all) {
      const row = deviceRowPg(r)
      const old = before.get(row.id)
      put(old ? { ...row, last_seen_at: newer(row.last_seen_at, old.last_seen_at) } : row)
    }
    loaded = true
    for (const [id, v] of versions) if (started.get(id) !== v) track(reread(id).catch(() => reload()))
  }
  const reload = () => {
    loading = load().catch((err) => deps.logger?.error('device directory not read', { error: (err as Error).message }))
  }
  let loading: Promise<void> = Promise.resolve()
  reload()

  deps.peers?.on(DEVICE_CHANGED_TOPIC, (body) => {
    const id = (body as { id?: unknown } | null)?.id
    if (typeof id !== 'string') return
    bump(id)
    track(reread(id).catch(() => reload()))
  })
  deps.peers?.onMissed(() => reload())

  // the last reports seen since the last write: seq → time
  const pending = new Map<number, number>()
  const seqIndex = () => {
    const m = new Map<number, DeviceRow>()
    for (const r of rows.values()) if (r.seq !== null) m.set(r.seq, r)
    return m
  }
  const seqOf = (seq: number) => (bySeq ??= seqIndex()).get(seq)

  async function flush() {
    if (pending.size === 0) return
    const batch = [...pending].map(([seq, at]) => ({ seq, at }))
    pending.clear()
    // one statement for every device seen; a report never moves last_seen_at back (another hub's may be newer)
    await sql.unsafe(
      `UPDATE devices AS d SET last_seen_at = v.at FROM jsonb_to_recordset($1::text::jsonb) AS v(seq bigint, at bigint)
       WHERE d.seq = v.seq AND (d.last_seen_at IS NULL OR d.last_seen_at < v.at)`,
      [JSON.stringify(batch)],
    )
  }
  let cancel: (() => void) | null = null
  let stopped = false
  const schedule = () => {
    cancel = timers.after(SEEN_FLUSH_MS, () => {
      cancel = null
      track(
        flush()
          .catch((err) => deps.logger?.error('last seen not written', { error: (err as Error).message }))
          .finally(() => {
            if (!stopped) schedule()
          }),
      )
    })
  }
  schedule()

  const tell = (clientId: string, id: string) => {
    deps.peers?.send(DEVICE_CHANGED_TOPIC, clientId, JSON.stringify({ id }))
  }

  const clientsWithDevices = () => [...ofClient.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const directory = {
    byId: (clientId, id) => {
      const r = rows.get(id)
      return r && r.client_id === clientId ? r : null
    },
    listForClient: list,
    cachedRef: (clientId: string, id: string): DeviceRef | null => {
      const r = rows.get(id)
      return r && r.client_id === clientId && r.seq !== null ? refOf(r) : null
    },
    cachedOnlyDevice: (clientId) => {
      const ids = ofClient.get(clientId)
      if (ids?.size !== 1) return null
      const r = rows.get(ids.values().next().value!)!
      return r.seq !== null ? refOf(r) : null
    },
    seqs: () => {
      const out: number[] = []
      for (const r of rows.values()) if (r.seq !== null) out.push(r.seq)
      return out.sort((a, b) => a - b)
    },
    labels: (clientId: string | null): DeviceLabels[] => {
      const clients = clientId === null ? clientsWithDevices() : [clientId]
      return clients.flatMap((c) => list(c).flatMap((r) => (r.seq === null ? [] : [{ id: r.id, clientId: r.client_id, hostname: r.hostname, seq: r.seq }])))
    },
    clientsWithDevices,
    markSeen(seq, at) {
      const r = seqOf(seq)
      if (r && (r.last_seen_at === null || r.last_seen_at < at)) r.last_seen_at = at
      const was = pending.get(seq)
      if (was === undefined || was < at) pending.set(seq, at)
    },
    changed(row) {
      bump(row.id)
      put({ ...row })
      tell(row.client_id, row.id)
    },
    forget(clientId, id) {
      if (id === undefined) return
      bump(id)
      drop(id)
      tell(clientId, id)
    },
    heard: () => {},
    async known(clientId: string, id: string | null) {
      // a start whose read failed (the database away) reads again on the next ingest
      if (!loaded) reload()
      await loading
      if (id !== null) {
        if (directory.cachedRef(clientId, id)) return
        // the store's read also gives a device made without a seq its seq
        const ref = await deps.store.ref(clientId, id)
        if (ref) await reread(id)
        return
      }
      if (ofClient.has(clientId)) return
      const found: Raw[] = await sql`SELECT id FROM devices WHERE client_id = ${clientId} LIMIT 2`
      for (const r of found) await reread(r.id as string)
    },
    ready: () => loading,
    /** resolves once the reads and writes under way (the link's, the timer's) are done */
    async idle() {
      for (;;) {
        await loading
        if (inFlight.size === 0) return
        await Promise.all(inFlight)
      }
    },
    flush,
    /** writes the reports not written yet; nothing is scheduled after */
    async stop() {
      stopped = true
      cancel?.()
      cancel = null
      await flush()
    },
    size: () => rows.size,
  } satisfies DeviceDirectory & Record<string, unknown>
  return directory
}

const newer = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b))

export type PgDeviceDirectory = ReturnType<typeof pgDeviceDirectory>
