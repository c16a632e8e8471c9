import type { SQL } from 'bun'
import { type Raw, numOrNull } from '../../db/pg/rows'
import { insertApiKeyPg } from '../api-keys/api-keys.store.pg'
import { registerDevicePg } from '../devices/devices.store.pg'
import { type EnrolmentRow, type EnrolmentsStore, type Redeemed, RedeemRefused } from './enrolments.store'

const row = (r: Raw): EnrolmentRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  created_by: r.created_by as string,
  created_at: Number(r.created_at),
  expires_at: Number(r.expires_at),
  used_at: numOrNull(r.used_at),
  device_id: (r.device_id as string | null) ?? null,
})

/** The enrolments table on PostgreSQL: the same answers as the SQLite store (enrolments.store.contract.test.ts). */
export function createEnrolmentsStorePg(sql: SQL): EnrolmentsStore {
  return {
    async insert(r) {
      await sql`INSERT INTO enrolments (id, client_id, token_hash, created_by, created_at, expires_at)
        VALUES (${r.id}, ${r.client_id}, ${r.token_hash}, ${r.created_by}, ${r.created_at}, ${r.expires_at})`
    },
    async byHash(hash) {
      const [r]: Raw[] = await sql`SELECT id, client_id, created_by, created_at, expires_at, used_at, device_id FROM enrolments WHERE token_hash = ${hash}`
      return r ? row(r) : null
    },
    async markUsed(id, at, deviceId) {
      // the condition is checked under the row's lock: of two hubs spending one token, one changes it
      const rows: Raw[] = await sql`UPDATE enrolments SET used_at = ${at}, device_id = ${deviceId} WHERE id = ${id} AND used_at IS NULL RETURNING id`
      return rows.length > 0
    },
    async prune(before) {
      await sql`DELETE FROM enrolments WHERE expires_at < ${before}`
    },
    async redeem(r) {
      try {
        return await sql.begin(async (tx): Promise<Redeemed> => {
          // spent first, under the row's lock: a second hub's update waits here, then finds it used
          const [spent]: Raw[] = await tx`UPDATE enrolments SET used_at = ${r.now}
            WHERE token_hash = ${r.tokenHash} AND client_id = ${r.clientId} AND used_at IS NULL AND expires_at > ${r.now} RETURNING id`
          if (!spent) return { refused: 'invalid_enrolment' }
          const reg = await registerDevicePg(tx, { ...r.device, clientId: r.clientId, boundTo: null })
          if ('refused' in reg) throw new RedeemRefused(reg.refused)
          await insertApiKeyPg(tx, { ...r.key, client_id: r.clientId, device_id: reg.id })
          await tx`UPDATE enrolments SET device_id = ${reg.id} WHERE id = ${spent.id as string}`
          return { enrolmentId: spent.id as string, deviceId: reg.id, created: reg.created }
        })
      } catch (err) {
        if (err instanceof RedeemRefused) return { refused: err.reason }
        throw err
      }
    },
  }
}
