import type { Database } from 'bun:sqlite'

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
}

/** What the ingest path needs to know about a device; cached, since every metric asks. */
export interface DeviceRef {
  id: string
  clientId: string
  seq: number
}

const COLS = 'id, client_id, fingerprint, hostname, os, os_version, arch, mac_address, created_at, updated_at, last_seen_at, seq'

function build(sqlite: Database) {
  const q = {
    byId: sqlite.query<DeviceRow, [string, string]>(`SELECT ${COLS} FROM devices WHERE id = ? AND client_id = ?`),
    byFingerprint: sqlite.query<DeviceRow, [string, string]>(`SELECT ${COLS} FROM devices WHERE client_id = ? AND fingerprint = ?`),
    list: sqlite.query<DeviceRow, [string]>(`SELECT ${COLS} FROM devices WHERE client_id = ? ORDER BY created_at, id`),
    firstTwo: sqlite.query<DeviceRef, [string]>('SELECT id, client_id AS clientId, seq FROM devices WHERE client_id = ? LIMIT 2'),
    count: sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM devices WHERE client_id = ?'),
    maxDevices: sqlite.query<{ max_devices: number }, [string]>('SELECT max_devices FROM clients WHERE id = ?'),
    nextSeq: sqlite.query<{ s: number }, []>('SELECT coalesce(max(seq), 0) + 1 AS s FROM devices'),
    insert: sqlite.query(
      `INSERT INTO devices (id, client_id, fingerprint, hostname, os, os_version, arch, mac_address, created_at, updated_at, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    update: sqlite.query('UPDATE devices SET hostname = ?, os = ?, os_version = ?, arch = ?, mac_address = ?, updated_at = ? WHERE id = ?'),
    remove: sqlite.query('DELETE FROM devices WHERE id = ? AND client_id = ?'),
    /** a device made without one (by an older version or directly in SQL) gets its seq on first use */
    assignSeq: sqlite.query<{ seq: number }, [string]>(
      'UPDATE devices SET seq = (SELECT coalesce(max(seq), 0) + 1 FROM devices) WHERE id = ? AND seq IS NULL RETURNING seq',
    ),
  }
  const withSeq = (r: DeviceRef): DeviceRef => (r.seq === null ? { ...r, seq: q.assignSeq.get(r.id)?.seq ?? q.byId.get(r.id, r.clientId)!.seq } : r)
  const refs = new Map<string, DeviceRef>()
  /** clientId → its only device, or null when it has none or several */
  const only = new Map<string, DeviceRef | null>()
  return {
    q,
    /** a device of this client, from cache; null for unknown ids and other tenants' devices */
    ref(clientId: string, id: string): DeviceRef | null {
      let r = refs.get(id)
      if (!r) {
        const row = q.byId.get(id, clientId)
        if (!row) return null
        r = withSeq({ id: row.id, clientId: row.client_id, seq: row.seq })
        if (refs.size > 50_000) refs.clear()
        refs.set(id, r)
      }
      return r.clientId === clientId ? r : null
    },
    onlyDevice(clientId: string): DeviceRef | null {
      let r = only.get(clientId)
      if (r === undefined) {
        const rows = q.firstTwo.all(clientId)
        r = rows.length === 1 ? withSeq(rows[0]!) : null
        if (only.size > 50_000) only.clear()
        only.set(clientId, r)
      }
      return r
    },
    forget(clientId: string, id?: string) {
      only.delete(clientId)
      if (id) refs.delete(id)
    },
  }
}

export type DeviceStore = ReturnType<typeof build>

const stores = new WeakMap<Database, DeviceStore>()

/** One store (prepared statements and caches) per database connection. */
export function deviceStore(sqlite: Database): DeviceStore {
  let s = stores.get(sqlite)
  if (!s) {
    s = build(sqlite)
    stores.set(sqlite, s)
  }
  return s
}
