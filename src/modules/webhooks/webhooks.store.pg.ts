import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import { EDITABLE, ENDPOINT_COLUMNS, type EndpointRow, type EndpointsStore } from './webhooks.store'

export const endpointRow = (r: Raw): EndpointRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  url: r.url as string,
  description: r.description as string,
  event_types: r.event_types as string,
  // boolean in PostgreSQL, 1/0 as SQLite stores it
  enabled: r.enabled ? 1 : 0,
  disabled_reason: (r.disabled_reason as EndpointRow['disabled_reason']) ?? null,
  disabled_at: numOrNull(r.disabled_at),
  secret_enc: r.secret_enc as string,
  previous_secret_enc: (r.previous_secret_enc as string | null) ?? null,
  previous_expires_at: numOrNull(r.previous_expires_at),
  failing_since: numOrNull(r.failing_since),
  created_at: num(r.created_at),
  updated_at: num(r.updated_at),
})

/**
 * The webhook_endpoints table on PostgreSQL: the same answers as the SQLite store
 * (webhooks.store.contract.test.ts). Disabling is a conditional update on the row that one hub
 * wins; its deliveries are held in the same transaction.
 */
export function createEndpointsStorePg(sql: SQL): EndpointsStore {
  return {
    async insert(r) {
      await sql`INSERT INTO webhook_endpoints (id, client_id, url, description, event_types, enabled, disabled_reason, disabled_at, secret_enc,
          previous_secret_enc, previous_expires_at, failing_since, created_at, updated_at)
        VALUES (${r.id}, ${r.client_id}, ${r.url}, ${r.description}, ${r.event_types}, ${r.enabled === 1}, ${r.disabled_reason}, ${r.disabled_at},
          ${r.secret_enc}, ${r.previous_secret_enc}, ${r.previous_expires_at}, ${r.failing_since}, ${r.created_at}, ${r.updated_at})`
    },
    async list(clientId) {
      const rows: Raw[] = await sql.unsafe(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE client_id = $1 ORDER BY created_at, id COLLATE "C"`, [
        clientId,
      ])
      return rows.map(endpointRow)
    },
    async byId(clientId, id) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE client_id = $1 AND id = $2`, [clientId, id])
      return r ? endpointRow(r) : null
    },
    async update(clientId, id, changes) {
      const cols = EDITABLE.filter((c) => c in changes)
      const sets = cols.map((c, i) => `${c} = $${i + 3}`)
      const rows: Raw[] = await sql.unsafe(
        sets.length
          ? `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE client_id = $1 AND id = $2 RETURNING id`
          : 'SELECT id FROM webhook_endpoints WHERE client_id = $1 AND id = $2',
        [clientId, id, ...cols.map((c) => changes[c] ?? null)],
      )
      return rows.length > 0
    },
    enable(clientId, id, now) {
      return sql.begin(async (tx) => {
        const on: Raw[] = await tx`UPDATE webhook_endpoints SET enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL,
            updated_at = ${now} WHERE client_id = ${clientId} AND id = ${id} AND NOT enabled RETURNING id`
        if (!on.length) return false
        await tx`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = least(next_attempt_at, ${now}::bigint)
          WHERE endpoint_id = ${id} AND status = 'held'`
        return true
      })
    },
    disable(clientId, id, reason, now) {
      return sql.begin(async (tx) => {
        // the row locked: of two hubs disabling it at once, the second finds it off
        const [before]: Raw[] = await tx.unsafe(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE client_id = $1 AND id = $2 FOR UPDATE`, [clientId, id])
        if (!before?.enabled) return null
        await tx`UPDATE webhook_endpoints SET enabled = false, disabled_reason = ${reason}, disabled_at = ${now}, updated_at = ${now}
          WHERE id = ${id}`
        await tx`UPDATE webhook_deliveries SET status = 'held' WHERE endpoint_id = ${id} AND status = 'pending'`
        return endpointRow(before)
      })
    },
    async remove(clientId, id) {
      const rows: Raw[] = await sql`DELETE FROM webhook_endpoints WHERE client_id = ${clientId} AND id = ${id} RETURNING id`
      return rows.length > 0
    },
    async count(clientId) {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM webhook_endpoints WHERE client_id = ${clientId}`
      return r!.n
    },
  }
}
