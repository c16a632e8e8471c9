import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import { revokeDeviceKeysPg } from '../api-keys/api-keys.store.pg'
import type { DeviceLabels, DeviceLastSeen, DeviceRef, DeviceRegistration, DeviceRow, DevicesStore, Registered } from './devices.store'

export const DEVICE_COLUMNS = 'id, client_id, fingerprint, hostname, os, os_version, arch, mac_address, created_at, updated_at, last_seen_at, seq, name, tags'

/** a devices row as the SQLite store answers it */
export const deviceRowPg = (r: Raw): DeviceRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  fingerprint: r.fingerprint as string,
  hostname: (r.hostname as string | null) ?? null,
  os: (r.os as string | null) ?? null,
  os_version: (r.os_version as string | null) ?? null,
  arch: (r.arch as string | null) ?? null,
  mac_address: (r.mac_address as string | null) ?? null,
  created_at: num(r.created_at),
  updated_at: num(r.updated_at),
  last_seen_at: numOrNull(r.last_seen_at),
  // null only for a device made outside the hub (SQL by hand), as on SQLite
  seq: numOrNull(r.seq) as number,
  name: (r.name as string | null) ?? null,
  tags: r.tags as string,
})

const ref = (r: Raw): DeviceRef => ({ id: r.id as string, clientId: r.client_id as string, seq: numOrNull(r.seq) as number })

/** the next never-used seq: the identity column never hands one out twice; the table keeps its newest rows only */
async function nextSeq(tx: SQL) {
  const [s]: Raw[] = await tx`INSERT INTO device_seqs DEFAULT VALUES RETURNING seq`
  const seq = num(s!.seq)
  await tx`DELETE FROM device_seqs WHERE seq < ${seq}`
  return seq
}

/**
 * A registration inside the caller's transaction `tx` (the devices store's own, or a redeemed
 * enrolment's): registrations of one client queue on an advisory lock held until `tx` ends, so
 * the count cannot miss one in flight on another hub.
 */
export async function registerDevicePg(tx: SQL, r: DeviceRegistration): Promise<Registered> {
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`vigil.devices.register:${r.clientId}`}, 0))`
  const [existing]: Raw[] = await tx`SELECT id FROM devices WHERE client_id = ${r.clientId} AND fingerprint = ${r.fingerprint}`
  const existingId = existing?.id as string | undefined
  if (r.boundTo && existingId !== r.boundTo) return { refused: 'device_mismatch' }
  const f = r.facts
  if (existingId) {
    await tx`UPDATE devices SET hostname = ${f.hostname}, os = ${f.os}, os_version = ${f.os_version}, arch = ${f.arch},
      mac_address = ${f.mac_address}, updated_at = ${r.now} WHERE id = ${existingId}`
    return { id: existingId, created: false }
  }
  const [c]: { n: number }[] = await tx`SELECT count(*)::int AS n FROM devices WHERE client_id = ${r.clientId}`
  if (c!.n >= r.max) return { refused: 'device_limit_reached' }
  const seq = await nextSeq(tx)
  await tx`INSERT INTO devices (id, client_id, fingerprint, hostname, os, os_version, arch, mac_address, created_at, updated_at, seq)
    VALUES (${r.newId}, ${r.clientId}, ${r.fingerprint}, ${f.hostname}, ${f.os}, ${f.os_version}, ${f.arch}, ${f.mac_address}, ${r.now}, ${r.now}, ${seq})`
  return { id: r.newId, created: true }
}

/**
 * The devices and device_seqs tables on PostgreSQL: the same answers as the SQLite store
 * (devices.store.contract.test.ts). Text is ordered by its bytes (COLLATE "C"), as SQLite orders it.
 */
export function createDevicesStorePg(sql: SQL): DevicesStore {
  /** a device made without a seq gets one on first use; of two hubs doing so at once, the first one's stands */
  const withSeq = async (r: DeviceRef): Promise<DeviceRef> => {
    if (r.seq !== null) return r
    const seq = await sql.begin(async (tx) => {
      const [set]: Raw[] = await tx`UPDATE devices SET seq = ${await nextSeq(tx)} WHERE id = ${r.id} AND seq IS NULL RETURNING seq`
      if (set) return num(set.seq)
      const [held]: Raw[] = await tx`SELECT seq FROM devices WHERE id = ${r.id}`
      return num(held!.seq)
    })
    return { ...r, seq }
  }
  const labels = (rows: Raw[]): DeviceLabels[] =>
    rows.map((r) => ({ id: r.id as string, clientId: r.client_id as string, hostname: (r.hostname as string | null) ?? null, seq: num(r.seq) }))

  const store: DevicesStore = {
    async byId(clientId, id) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE id = $1 AND client_id = $2`, [id, clientId])
      return r ? deviceRowPg(r) : null
    },
    async byFingerprint(clientId, fingerprint) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE client_id = $1 AND fingerprint = $2`, [clientId, fingerprint])
      return r ? deviceRowPg(r) : null
    },
    async listForClient(clientId) {
      const rows: Raw[] = await sql.unsafe(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE client_id = $1 ORDER BY created_at, id COLLATE "C"`, [clientId])
      return rows.map(deviceRowPg)
    },
    async countForClient(clientId) {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM devices WHERE client_id = ${clientId}`
      return r!.n
    },
    async countAll() {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM devices`
      return r!.n
    },
    register(r) {
      return sql.begin((tx) => registerDevicePg(tx, r))
    },
    async change(clientId, id, c, now) {
      if (c.name === undefined && c.tags === undefined) return store.byId(clientId, id)
      // a field left out keeps its value: the flags say which are given
      const [r]: Raw[] = await sql.unsafe(
        `UPDATE devices SET name = CASE WHEN $1 THEN $2 ELSE name END, tags = CASE WHEN $3 THEN $4 ELSE tags END, updated_at = $5
         WHERE id = $6 AND client_id = $7 RETURNING ${DEVICE_COLUMNS}`,
        [c.name !== undefined, c.name ?? null, c.tags !== undefined, JSON.stringify(c.tags ?? []), now, id, clientId],
      )
      return r ? deviceRowPg(r) : null
    },
    remove(clientId, id, now) {
      return sql.begin(async (tx) => {
        // the row locked first: a key bound to it after this point would wait, then find no device
        const [held]: Raw[] = await tx`SELECT id FROM devices WHERE id = ${id} AND client_id = ${clientId} FOR UPDATE`
        if (!held) return null
        const revoked = await revokeDeviceKeysPg(tx, clientId, id, now)
        await tx`DELETE FROM devices WHERE id = ${id} AND client_id = ${clientId}`
        return revoked
      })
    },
    async labels(clientId) {
      return labels(
        clientId === null
          ? await sql`SELECT id, client_id, hostname, seq FROM devices WHERE seq IS NOT NULL ORDER BY client_id COLLATE "C", created_at, id COLLATE "C"`
          : await sql`SELECT id, client_id, hostname, seq FROM devices WHERE client_id = ${clientId} AND seq IS NOT NULL ORDER BY created_at, id COLLATE "C"`,
      )
    },
    async lastSeenAll() {
      const rows: Raw[] = await sql`SELECT id, client_id, seq, last_seen_at FROM devices`
      return rows.map(
        (r): DeviceLastSeen => ({ id: r.id as string, clientId: r.client_id as string, seq: numOrNull(r.seq), lastSeenAt: numOrNull(r.last_seen_at) }),
      )
    },
    async seqs() {
      const rows: Raw[] = await sql`SELECT seq FROM devices WHERE seq IS NOT NULL ORDER BY seq`
      return rows.map((r) => num(r.seq))
    },
    async clientsWithDevices() {
      const rows: Raw[] = await sql`SELECT DISTINCT client_id COLLATE "C" AS client_id FROM devices ORDER BY 1`
      return rows.map((r) => r.client_id as string)
    },
    async markSeen(seq, at) {
      await sql`UPDATE devices SET last_seen_at = ${at} WHERE seq = ${seq}`
    },
    async ref(clientId, id) {
      const [r]: Raw[] = await sql`SELECT id, client_id, seq FROM devices WHERE id = ${id} AND client_id = ${clientId}`
      return r ? withSeq(ref(r)) : null
    },
    async onlyDevice(clientId) {
      const rows: Raw[] = await sql`SELECT id, client_id, seq FROM devices WHERE client_id = ${clientId} LIMIT 2`
      return rows.length === 1 ? withSeq(ref(rows[0]!)) : null
    },
  }
  return store
}
