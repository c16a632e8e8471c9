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
    newSeq: sqlite.query<{ seq: number }, []>('INSERT INTO device_seqs DEFAULT VALUES RETURNING seq'),
    dropOldSeqs: sqlite.query<never, [number]>('DELETE FROM device_seqs WHERE seq < ?'),
    insert: sqlite.query(
      `INSERT INTO devices (id, client_id, fingerprint, hostname, os, os_version, arch, mac_address, created_at, updated_at, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    update: sqlite.query('UPDATE devices SET hostname = ?, os = ?, os_version = ?, arch = ?, mac_address = ?, updated_at = ? WHERE id = ?'),
    remove: sqlite.query('DELETE FROM devices WHERE id = ? AND client_id = ?'),
    /** a device made without one (by an older version or directly in SQL) gets its seq on first use */
    assignSeq: sqlite.query<{ seq: number }, [number, string]>('UPDATE devices SET seq = ? WHERE id = ? AND seq IS NULL RETURNING seq'),
  }
  /** the next never-used seq (the counter table keeps only its last row) */
  const nextSeq = () => {
    const seq = q.newSeq.get()!.seq
    q.dropOldSeqs.run(seq)
    return seq
  }
  const withSeq = (r: DeviceRef): DeviceRef => {
    if (r.seq !== null) return r
    const seq = sqlite.transaction(() => q.assignSeq.get(nextSeq(), r.id)?.seq ?? q.byId.get(r.id, r.clientId)!.seq).immediate()
    return { ...r, seq }
  }
  const refs = new Map<string, DeviceRef>()
  /** clientId → its only device, or null when it has none or several */
  const only = new Map<string, DeviceRef | null>()
  return {
    q,
    nextSeq,
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

/** One store (prepared statements and caches) per database connection. */
export const deviceStore: (sqlite: Database) => DeviceStore = perConnection(build)
