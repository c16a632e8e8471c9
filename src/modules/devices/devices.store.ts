import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'
import { sqliteApiKeys } from '../api-keys/api-keys.store'

export interface DeviceRow {
  id: string
  client_id: string
  fingerprint: string
  hostname: string | null
  os: string | null
  os_version: string | null
  arch: string | null
  mac_address: string | null
  created_at: number
  updated_at: number
  last_seen_at: number | null
  seq: number
  /** the tenant's display name, null to show the hostname */
  name: string | null
  /** the tenant's tags as a JSON array of strings */
  tags: string
}

/** What the ingest path needs to know about a device; cached, since every metric asks. */
export interface DeviceRef {
  id: string
  clientId: string
  seq: number
}

/** A device as a Prometheus scrape names it. */
export interface DeviceLabels {
  id: string
  clientId: string
  hostname: string | null
  seq: number
}

/** A device with its stored last report, for the status sweep. */
export interface DeviceLastSeen {
  id: string
  clientId: string
  seq: number | null
  lastSeenAt: number | null
}

/** The facts a collector reports about its machine. */
export type DeviceFacts = Pick<DeviceRow, 'hostname' | 'os' | 'os_version' | 'arch' | 'mac_address'>

export type NewDevice = DeviceFacts & Pick<DeviceRow, 'id' | 'client_id' | 'fingerprint' | 'created_at' | 'seq'>

/** A collector registering its machine: found by fingerprint and updated, or made within the client's limit. */
export interface DeviceRegistration {
  clientId: string
  /** the one device a bound key may act for; null for a key of the whole client */
  boundTo: string | null
  fingerprint: string
  facts: DeviceFacts
  /** the client's device limit, applied when the device is new */
  max: number
  /** the id a new device gets */
  newId: string
  now: number
}

/** What a registration did, or why it was refused (nothing written then). */
export type Registered = { id: string; created: boolean } | { refused: 'device_mismatch' | 'device_limit_reached' }

/** A tenant's change to a device: a field left out is unchanged. */
export interface DeviceChange {
  /** null shows the hostname again */
  name?: string | null
  tags?: string[]
}

/**
 * The devices and device_seqs tables, on either engine (this file: SQLite; devices.store.pg.ts:
 * PostgreSQL). Every tenant-owned read and write filters by client_id; the operator's counts,
 * the scrape of every client and the status sweep read all clients on purpose. What must read and
 * write together (a registration, a change) is one call, one transaction.
 */
export interface DevicesStore {
  byId(clientId: string, id: string): Promise<DeviceRow | null>
  byFingerprint(clientId: string, fingerprint: string): Promise<DeviceRow | null>
  /** oldest first, ties by id */
  listForClient(clientId: string): Promise<DeviceRow[]>
  countForClient(clientId: string): Promise<number>
  /** every client's devices, for the operator's stats */
  countAll(): Promise<number>
  /** the limit check and the insert in one transaction: concurrent registrations never overshoot `max` */
  register(r: DeviceRegistration): Promise<Registered>
  /** the device as changed; null for unknown ids and other tenants' devices */
  change(clientId: string, id: string, change: DeviceChange, now: number): Promise<DeviceRow | null>
  /**
   * deletes a device of this client and revokes the keys bound to it, in one transaction (a key
   * with no device acts for the whole client, so one left live would outgrow its device); the
   * revoked keys' ids, or null when there was no such device of this client
   */
  remove(clientId: string, id: string, now: number): Promise<string[] | null>
  /** what a scrape labels each device with: one client's devices, or all (null) */
  labels(clientId: string | null): Promise<DeviceLabels[]>
  lastSeenAll(): Promise<DeviceLastSeen[]>
  /** every device's seq (the key of its metric rows), ascending */
  seqs(): Promise<number[]>
  /** clients with at least one device, in id order */
  clientsWithDevices(): Promise<string[]>
  /** when the device last reported (server time) */
  markSeen(seq: number, at: number): Promise<void>
  /** a device of this client with its seq (given one on first use if it has none); null otherwise */
  ref(clientId: string, id: string): Promise<DeviceRef | null>
  /** the client's only device; null when it has none or several */
  onlyDevice(clientId: string): Promise<DeviceRef | null>
}

/**
 * last_seen_at is written to device_seen (a narrow table, one page for a hundred devices) and read
 * as the newer of it and the devices row's column, which earlier versions wrote and PostgreSQL hubs
 * still do (SQLite's two-argument max is NULL when either is)
 */
const LAST_SEEN = 'max(coalesce(d.last_seen_at, s.at), coalesce(s.at, d.last_seen_at))'
const FROM = 'devices d LEFT JOIN device_seen s ON s.seq = d.seq'
const COLS = `d.id, d.client_id, d.fingerprint, d.hostname, d.os, d.os_version, d.arch, d.mac_address, d.created_at, d.updated_at, ${LAST_SEEN} AS last_seen_at, d.seq, d.name, d.tags`
/** the ref caches are dropped whole past this many entries */
const MAX_CACHED = 50_000

function build(sqlite: Database) {
  const keys = sqliteApiKeys(sqlite)
  const byId = sqlite.query<DeviceRow, [string, string]>(`SELECT ${COLS} FROM ${FROM} WHERE d.id = ? AND d.client_id = ?`)
  const byFingerprint = sqlite.query<DeviceRow, [string, string]>(`SELECT ${COLS} FROM ${FROM} WHERE d.client_id = ? AND d.fingerprint = ?`)
  const list = sqlite.query<DeviceRow, [string]>(`SELECT ${COLS} FROM ${FROM} WHERE d.client_id = ? ORDER BY d.created_at, d.id`)
  const firstTwo = sqlite.query<DeviceRef, [string]>('SELECT id, client_id AS clientId, seq FROM devices WHERE client_id = ? LIMIT 2')
  const count = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM devices WHERE client_id = ?')
  const countAll = sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM devices')
  const newSeq = sqlite.query<{ seq: number }, []>('INSERT INTO device_seqs DEFAULT VALUES RETURNING seq')
  const dropOldSeqs = sqlite.query<never, [number]>('DELETE FROM device_seqs WHERE seq < ?')
  const insert = sqlite.query<
    never,
    [string, string, string, string | null, string | null, string | null, string | null, string | null, number, number, number]
  >(
    `INSERT INTO devices (id, client_id, fingerprint, hostname, os, os_version, arch, mac_address, created_at, updated_at, seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const update = sqlite.query<never, [string | null, string | null, string | null, string | null, string | null, number, string]>(
    'UPDATE devices SET hostname = ?, os = ?, os_version = ?, arch = ?, mac_address = ?, updated_at = ? WHERE id = ?',
  )
  const setName = sqlite.query<never, [string | null, number, string, string]>('UPDATE devices SET name = ?, updated_at = ? WHERE id = ? AND client_id = ?')
  const setTags = sqlite.query<never, [string, number, string, string]>('UPDATE devices SET tags = ?, updated_at = ? WHERE id = ? AND client_id = ?')
  const remove = sqlite.query<never, [string, string]>('DELETE FROM devices WHERE id = ? AND client_id = ?')
  const allSeqs = sqlite.query<{ seq: number }, []>('SELECT seq FROM devices WHERE seq IS NOT NULL ORDER BY seq')
  const clientsWithDevices = sqlite.query<{ client_id: string }, []>('SELECT DISTINCT client_id FROM devices ORDER BY client_id')
  const labelsAll = sqlite.query<DeviceLabels, []>(
    'SELECT id, client_id AS clientId, hostname, seq FROM devices WHERE seq IS NOT NULL ORDER BY client_id, created_at, id',
  )
  const labelsOf = sqlite.query<DeviceLabels, [string]>(
    'SELECT id, client_id AS clientId, hostname, seq FROM devices WHERE client_id = ? AND seq IS NOT NULL ORDER BY created_at, id',
  )
  const lastSeenAll = sqlite.query<DeviceLastSeen, []>(`SELECT d.id, d.client_id AS clientId, d.seq, ${LAST_SEEN} AS lastSeenAt FROM ${FROM}`)
  const markSeen = sqlite.query<never, [number, number]>(
    // a seq without a device (deleted in between) writes nothing, as the UPDATE of its row did
    'INSERT INTO device_seen (seq, at) SELECT seq, ? FROM devices WHERE seq = ? ON CONFLICT (seq) DO UPDATE SET at = excluded.at',
  )
  /** a device made without one (by an older version or directly in SQL) gets its seq on first use */
  const assignSeq = sqlite.query<{ seq: number }, [number, string]>('UPDATE devices SET seq = ? WHERE id = ? AND seq IS NULL RETURNING seq')

  /** the next never-used seq (the counter table keeps only its last row) */
  const nextSeq = () => {
    const seq = newSeq.get()!.seq
    dropOldSeqs.run(seq)
    return seq
  }
  const withSeq = (r: DeviceRef): DeviceRef => {
    if (r.seq !== null) return r
    const seq = sqlite.transaction(() => assignSeq.get(nextSeq(), r.id)?.seq ?? byId.get(r.id, r.clientId)!.seq).immediate()
    return { ...r, seq }
  }
  const refOf = (clientId: string, id: string): DeviceRef | null => {
    const row = byId.get(id, clientId)
    return row ? withSeq({ id: row.id, clientId: row.client_id, seq: row.seq }) : null
  }
  const onlyOf = (clientId: string): DeviceRef | null => {
    const rows = firstTwo.all(clientId)
    return rows.length === 1 ? withSeq(rows[0]!) : null
  }
  const refs = new Map<string, DeviceRef>()
  /** clientId → its only device, or null when it has none or several */
  const only = new Map<string, DeviceRef | null>()

  return {
    byId: (clientId: string, id: string): DeviceRow | null => byId.get(id, clientId),
    byFingerprint: (clientId: string, fingerprint: string): DeviceRow | null => byFingerprint.get(clientId, fingerprint),
    listForClient: (clientId: string): DeviceRow[] => list.all(clientId),
    countForClient: (clientId: string): number => count.get(clientId)!.n,
    countAll: (): number => countAll.get()!.n,
    labels: (clientId: string | null): DeviceLabels[] => (clientId === null ? labelsAll.all() : labelsOf.all(clientId)),
    lastSeenAll: () => lastSeenAll.all(),
    /** in one IMMEDIATE transaction (a savepoint inside a caller's): no other writer between the count and the insert */
    register: (r: DeviceRegistration): Registered =>
      sqlite
        .transaction((): Registered => {
          const existing = byFingerprint.get(r.clientId, r.fingerprint)
          if (r.boundTo && existing?.id !== r.boundTo) return { refused: 'device_mismatch' }
          const f = r.facts
          if (existing) {
            update.run(f.hostname, f.os, f.os_version, f.arch, f.mac_address, r.now, existing.id)
            return { id: existing.id, created: false }
          }
          if (count.get(r.clientId)!.n >= r.max) return { refused: 'device_limit_reached' }
          const seq = nextSeq()
          insert.run(r.newId, r.clientId, r.fingerprint, f.hostname, f.os, f.os_version, f.arch, f.mac_address, r.now, r.now, seq)
          return { id: r.newId, created: true }
        })
        .immediate(),
    change: (clientId: string, id: string, c: DeviceChange, now: number): DeviceRow | null =>
      sqlite
        .transaction(() => {
          if (!byId.get(id, clientId)) return null
          if (c.name !== undefined) setName.run(c.name, now, id, clientId)
          if (c.tags !== undefined) setTags.run(JSON.stringify(c.tags), now, id, clientId)
          return byId.get(id, clientId)
        })
        .immediate(),
    remove: (clientId: string, id: string, now: number): string[] | null =>
      sqlite
        .transaction(() => {
          if (!byId.get(id, clientId)) return null
          const revoked = keys.revokeForDevice(clientId, id, now)
          remove.run(id, clientId)
          return revoked
        })
        .immediate(),
    seqs: () => allSeqs.all().map((r) => r.seq),
    clientsWithDevices: () => clientsWithDevices.all().map((r) => r.client_id),
    markSeen: (seq: number, at: number) => void markSeen.run(at, seq),
    ref: refOf,
    onlyDevice: onlyOf,
    /** `ref` from the ingest path's cache */
    cachedRef(clientId: string, id: string): DeviceRef | null {
      let r = refs.get(id)
      if (!r) {
        const found = refOf(clientId, id)
        if (!found) return null
        r = found
        if (refs.size > MAX_CACHED) refs.clear()
        refs.set(id, r)
      }
      return r.clientId === clientId ? r : null
    },
    /** `onlyDevice` from the ingest path's cache */
    cachedOnlyDevice(clientId: string): DeviceRef | null {
      let r = only.get(clientId)
      if (r === undefined) {
        r = onlyOf(clientId)
        if (only.size > MAX_CACHED) only.clear()
        only.set(clientId, r)
      }
      return r
    },
    /** drops cached refs after a registration or delete changed what they answer */
    forget(clientId: string, id?: string) {
      only.delete(clientId)
      if (id) refs.delete(id)
    },
  }
}

/**
 * SQLite's statements, synchronous, with the ingest path's ref caches; one per database
 * connection, so every holder of the connection sees the same caches. Besides backing
 * `createDevicesStore`, they serve a redeemed enrolment's registration (inside the enrolments
 * store's transaction) and the callers that cannot await yet: the metrics domain's ports
 * (resolving a sample's device, its last-seen write inside the metric writer's transaction) and
 * the other domains' ports that read devices synchronously.
 */
export const sqliteDevices = perConnection(build)

export type SqliteDevices = ReturnType<typeof build>

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createDevicesStore(devices: SqliteDevices): DevicesStore {
  return {
    byId: async (clientId, id) => devices.byId(clientId, id),
    byFingerprint: async (clientId, fingerprint) => devices.byFingerprint(clientId, fingerprint),
    listForClient: async (clientId) => devices.listForClient(clientId),
    countForClient: async (clientId) => devices.countForClient(clientId),
    countAll: async () => devices.countAll(),
    register: async (r) => devices.register(r),
    change: async (clientId, id, c, now) => devices.change(clientId, id, c, now),
    remove: async (clientId, id, now) => devices.remove(clientId, id, now),
    labels: async (clientId) => devices.labels(clientId),
    lastSeenAll: async () => devices.lastSeenAll(),
    seqs: async () => devices.seqs(),
    clientsWithDevices: async () => devices.clientsWithDevices(),
    markSeen: async (seq, at) => devices.markSeen(seq, at),
    ref: async (clientId, id) => devices.ref(clientId, id),
    onlyDevice: async (clientId) => devices.onlyDevice(clientId),
  }
}
