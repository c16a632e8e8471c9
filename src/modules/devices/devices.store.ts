import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/per-connection'

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

/** The facts a collector reports about its machine. */
export type DeviceFacts = Pick<DeviceRow, 'hostname' | 'os' | 'os_version' | 'arch' | 'mac_address'>

export type NewDevice = DeviceFacts & Pick<DeviceRow, 'id' | 'client_id' | 'fingerprint' | 'created_at' | 'seq'>

const COLS = 'id, client_id, fingerprint, hostname, os, os_version, arch, mac_address, created_at, updated_at, last_seen_at, seq, name, tags'
/** the ref caches are dropped whole past this many entries */
const MAX_CACHED = 50_000

function build(sqlite: Database) {
  const byId = sqlite.query<DeviceRow, [string, string]>(`SELECT ${COLS} FROM devices WHERE id = ? AND client_id = ?`)
  const byFingerprint = sqlite.query<DeviceRow, [string, string]>(`SELECT ${COLS} FROM devices WHERE client_id = ? AND fingerprint = ?`)
  const list = sqlite.query<DeviceRow, [string]>(`SELECT ${COLS} FROM devices WHERE client_id = ? ORDER BY created_at, id`)
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
  const allSeqs = sqlite.query<{ seq: number }, []>('SELECT seq FROM devices WHERE seq IS NOT NULL')
  const clientsWithDevices = sqlite.query<{ client_id: string }, []>('SELECT DISTINCT client_id FROM devices ORDER BY client_id')
  const labelsAll = sqlite.query<DeviceLabels, []>(
    'SELECT id, client_id AS clientId, hostname, seq FROM devices WHERE seq IS NOT NULL ORDER BY client_id, created_at, id',
  )
  const labelsOf = sqlite.query<DeviceLabels, [string]>(
    'SELECT id, client_id AS clientId, hostname, seq FROM devices WHERE client_id = ? AND seq IS NOT NULL ORDER BY created_at, id',
  )
  const lastSeenAll = sqlite.query<{ id: string; clientId: string; seq: number | null; lastSeenAt: number | null }, []>(
    'SELECT id, client_id AS clientId, seq, last_seen_at AS lastSeenAt FROM devices',
  )
  const markSeen = sqlite.query<never, [number, number]>('UPDATE devices SET last_seen_at = ? WHERE seq = ?')
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
  const refs = new Map<string, DeviceRef>()
  /** clientId → its only device, or null when it has none or several */
  const only = new Map<string, DeviceRef | null>()

  return {
    /** runs `fn` in one IMMEDIATE transaction: its reads and writes see no other writer in between */
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
    byId: (clientId: string, id: string): DeviceRow | null => byId.get(id, clientId),
    byFingerprint: (clientId: string, fingerprint: string): DeviceRow | null => byFingerprint.get(clientId, fingerprint),
    /** oldest first */
    listForClient: (clientId: string): DeviceRow[] => list.all(clientId),
    countForClient: (clientId: string): number => count.get(clientId)!.n,
    /** every client's devices, for the operator's stats */
    countAll: (): number => countAll.get()!.n,
    /** what a scrape labels each device with: one client's devices, or all (null) */
    labels: (clientId: string | null): DeviceLabels[] => (clientId === null ? labelsAll.all() : labelsOf.all(clientId)),
    /** every client's devices with their last report, for the status sweep */
    lastSeenAll: () => lastSeenAll.all(),
    nextSeq,
    insert(d: NewDevice) {
      insert.run(d.id, d.client_id, d.fingerprint, d.hostname, d.os, d.os_version, d.arch, d.mac_address, d.created_at, d.created_at, d.seq)
    },
    update(id: string, facts: DeviceFacts, now: number) {
      update.run(facts.hostname, facts.os, facts.os_version, facts.arch, facts.mac_address, now, id)
    },
    /** the tenant's display name (null: show the hostname) */
    setName: (clientId: string, id: string, name: string | null, now: number) => void setName.run(name, now, id, clientId),
    /** the tenant's tags, stored as a JSON array */
    setTags: (clientId: string, id: string, tags: string[], now: number) => void setTags.run(JSON.stringify(tags), now, id, clientId),
    remove: (clientId: string, id: string) => void remove.run(id, clientId),
    /** a device of this client, from cache; null for unknown ids and other tenants' devices */
    ref(clientId: string, id: string): DeviceRef | null {
      let r = refs.get(id)
      if (!r) {
        const row = byId.get(id, clientId)
        if (!row) return null
        r = withSeq({ id: row.id, clientId: row.client_id, seq: row.seq })
        if (refs.size > MAX_CACHED) refs.clear()
        refs.set(id, r)
      }
      return r.clientId === clientId ? r : null
    },
    /** the client's only device, from cache; null when it has none or several */
    onlyDevice(clientId: string): DeviceRef | null {
      let r = only.get(clientId)
      if (r === undefined) {
        const rows = firstTwo.all(clientId)
        r = rows.length === 1 ? withSeq(rows[0]!) : null
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
    // for the metrics and AI domains
    /** every device's seq (the key of its metric rows) */
    seqs: () => allSeqs.all().map((r) => r.seq),
    /** clients with at least one device, in id order */
    clientsWithDevices: () => clientsWithDevices.all().map((r) => r.client_id),
    /** when the device last reported (server time) */
    markSeen: (seq: number, at: number) => void markSeen.run(at, seq),
  }
}

export type DevicesStore = ReturnType<typeof build>

/**
 * The devices and device_seqs tables, with the ingest path's ref caches. One per database
 * connection, so every holder of the connection sees the same caches.
 */
export const createDevicesStore: (sqlite: Database) => DevicesStore = perConnection(build)
