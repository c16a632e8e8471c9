import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import {
  type AttemptRow,
  CLAIMED_COLUMNS,
  type ClaimedDelivery,
  DELIVERY_COLUMNS,
  type DeliveryRow,
  type DeliveryState,
  type NewDelivery,
  type OutboxStore,
} from './webhooks.outbox'

const delivery = (r: Raw): DeliveryRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  endpoint_id: r.endpoint_id as string,
  message_id: r.message_id as string,
  event_type: r.event_type as string,
  payload: r.payload as string,
  status: r.status as DeliveryState,
  attempts: num(r.attempts),
  schedule_from: num(r.schedule_from),
  next_attempt_at: num(r.next_attempt_at),
  last_attempt_at: numOrNull(r.last_attempt_at),
  last_status_code: numOrNull(r.last_status_code),
  last_error: (r.last_error as string | null) ?? null,
  created_at: num(r.created_at),
  delivered_at: numOrNull(r.delivered_at),
})

const claimed = (r: Raw): ClaimedDelivery => ({
  id: r.id as string,
  client_id: r.client_id as string,
  endpoint_id: r.endpoint_id as string,
  message_id: r.message_id as string,
  payload: r.payload as string,
  attempts: num(r.attempts),
  schedule_from: num(r.schedule_from),
  next_attempt_at: num(r.next_attempt_at),
  url: r.url as string,
  secret_enc: r.secret_enc as string,
  previous_secret_enc: (r.previous_secret_enc as string | null) ?? null,
  previous_expires_at: numOrNull(r.previous_expires_at),
  failing_since: numOrNull(r.failing_since),
})

const attempt = (r: Raw): AttemptRow => ({
  id: r.id as string,
  delivery_id: r.delivery_id as string,
  attempt: num(r.attempt),
  at: num(r.at),
  status_code: numOrNull(r.status_code),
  duration_ms: num(r.duration_ms),
  error: (r.error as string | null) ?? null,
  response_excerpt: (r.response_excerpt as string | null) ?? null,
})

/** one statement: all of them or none */
async function insertRows(sql: SQL, rows: NewDelivery[]) {
  if (!rows.length) return
  await sql.unsafe(
    `INSERT INTO webhook_deliveries (id, client_id, endpoint_id, message_id, event_type, payload, status, next_attempt_at, created_at)
     SELECT id, client_id, endpoint_id, message_id, event_type, payload, 'pending', created_at, created_at
       FROM jsonb_to_recordset($1::text::jsonb) AS r(id text, client_id text, endpoint_id text, message_id text, event_type text, payload text,
            created_at bigint)`,
    [JSON.stringify(rows)],
  )
}

/**
 * The webhook outbox and its log on PostgreSQL: the same answers as the SQLite store
 * (webhooks.outbox.contract.test.ts). A claimed row's next_attempt_at is its lease
 * (deliveries.due.pg.ts), so `record` writes only for the worker whose lease still holds.
 */
export function createOutboxStorePg(sql: SQL): OutboxStore {
  return {
    enqueue: (rows) => insertRows(sql, rows),
    enqueueEvent(clientId, type, rowsFor) {
      return sql.begin(async (tx) => {
        const found: Raw[] =
          await tx`SELECT id FROM webhook_endpoints WHERE client_id = ${clientId} AND enabled AND event_types::jsonb @> jsonb_build_array(${type}::text)
          ORDER BY created_at, id COLLATE "C"`
        const ids = found.map((r) => r.id as string)
        if (ids.length) await insertRows(tx, rowsFor(ids))
        return ids
      })
    },
    async claimedIn(ids) {
      if (!ids.length) return []
      const rows: Raw[] = await sql.unsafe(
        `SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.id IN (SELECT jsonb_array_elements_text($1::text::jsonb))`,
        [JSON.stringify(ids)],
      )
      return rows.map(claimed)
    },
    async nextDueAt() {
      const [r]: Raw[] = await sql`SELECT min(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending'`
      return numOrNull(r?.at)
    },
    async releaseClaims() {
      await sql`UPDATE webhook_deliveries SET status = 'pending' WHERE status = 'sending'`
    },
    record(deliveryId, held, o, failure) {
      const a = o.attempt
      return sql.begin(async (tx) => {
        // a retry for an endpoint disabled while this attempt was in flight is held, like its others
        const [done]: Raw[] = await tx`UPDATE webhook_deliveries d
            SET status = CASE WHEN ${o.status} = 'pending' AND NOT (SELECT e.enabled FROM webhook_endpoints e WHERE e.id = d.endpoint_id)
                              THEN 'held' ELSE ${o.status} END,
                attempts = ${a.attempt}, next_attempt_at = ${o.nextAttemptAt}, last_attempt_at = ${a.at}, last_status_code = ${a.status_code},
                last_error = ${a.error}, delivered_at = CASE WHEN ${o.status} = 'succeeded' THEN ${a.at}::bigint ELSE delivered_at END
          WHERE id = ${deliveryId} AND status = 'sending' AND next_attempt_at = ${held} RETURNING endpoint_id`
        if (!done) return null
        const endpointId = done.endpoint_id as string
        await tx`INSERT INTO webhook_attempts (id, delivery_id, attempt, at, status_code, duration_ms, error, response_excerpt)
          VALUES (${a.id}, ${deliveryId}, ${a.attempt}, ${a.at}, ${a.status_code}, ${a.duration_ms}, ${a.error}, ${a.response_excerpt})`
        if (failure === 'clear') await tx`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${endpointId} AND failing_since IS NOT NULL`
        if (failure !== 'mark') return { failingSince: null }
        const [f]: Raw[] = await tx`UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ${a.at}::bigint) WHERE id = ${endpointId}
          RETURNING failing_since`
        return { failingSince: f ? num(f.failing_since) : a.at }
      })
    },
    async byId(clientId, id) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE client_id = $1 AND id = $2`, [clientId, id])
      return r ? delivery(r) : null
    },
    async attempts(clientId, deliveryId) {
      const rows: Raw[] = await sql`SELECT a.id, a.delivery_id, a.attempt, a.at, a.status_code, a.duration_ms, a.error, a.response_excerpt
          FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
         WHERE d.client_id = ${clientId} AND d.id = ${deliveryId} ORDER BY a.attempt`
      return rows.map(attempt)
    },
    async page(clientId, filter, limit, offset) {
      const where = 'client_id = $1 AND ($2::text IS NULL OR endpoint_id = $2) AND ($3::text IS NULL OR status = $3)'
      const args = [clientId, filter.endpointId ?? null, filter.status ?? null]
      const items: Raw[] = await sql.unsafe(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where} ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $4 OFFSET $5`,
        [...args, limit, offset],
      )
      const [c]: { n: number }[] = await sql.unsafe(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where}`, args)
      return { items: items.map(delivery), total: c!.n }
    },
    async resend(clientId, id, now) {
      const [r]: Raw[] = await sql.unsafe(
        `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $1, schedule_from = attempts
          WHERE client_id = $2 AND id = $3 AND status IN ('succeeded', 'failed', 'pending') RETURNING ${DELIVERY_COLUMNS}`,
        [now, clientId, id],
      )
      return r ? delivery(r) : null
    },
    async prune(before) {
      const [r]: { n: number }[] =
        await sql`WITH gone AS (DELETE FROM webhook_deliveries WHERE status IN ('succeeded', 'failed') AND created_at < ${before} RETURNING 1)
        SELECT count(*)::int AS n FROM gone`
      return r!.n
    },
  }
}
