import type { Database } from 'bun:sqlite'
import { dueQueries } from '../deliveries/deliveries.due'

/**
 * pending: waiting for its next attempt; sending: claimed by the worker (pending again after a
 * restart, since the process that claimed it is gone); held: its endpoint is disabled (pending
 * again when it is enabled); succeeded; failed: every attempt of its schedule failed, or its
 * endpoint answered 410.
 */
export type DeliveryState = 'pending' | 'sending' | 'held' | 'succeeded' | 'failed'

export interface DeliveryRow {
  id: string
  client_id: string
  endpoint_id: string
  message_id: string
  event_type: string
  payload: string
  status: DeliveryState
  attempts: number
  schedule_from: number
  next_attempt_at: number
  last_attempt_at: number | null
  last_status_code: number | null
  last_error: string | null
  created_at: number
  delivered_at: number | null
}

export type NewDelivery = Pick<DeliveryRow, 'id' | 'client_id' | 'endpoint_id' | 'message_id' | 'event_type' | 'payload' | 'created_at'>

/** A claimed delivery with what sending it needs of its endpoint. */
export interface ClaimedDelivery extends Pick<DeliveryRow, 'id' | 'client_id' | 'endpoint_id' | 'message_id' | 'payload' | 'attempts' | 'schedule_from'> {
  url: string
  secret_enc: string
  previous_secret_enc: string | null
  previous_expires_at: number | null
  /** the endpoint's, when claimed: a success clears it only if set */
  failing_since: number | null
}

export interface AttemptRow {
  id: string
  delivery_id: string
  attempt: number
  at: number
  status_code: number | null
  duration_ms: number
  error: string | null
  response_excerpt: string | null
}

/** What an attempt changes on its delivery. */
export interface AttemptOutcome {
  status: 'pending' | 'succeeded' | 'failed'
  nextAttemptAt: number
  attempt: AttemptRow
}

const COLUMNS =
  'id, client_id, endpoint_id, message_id, event_type, payload, status, attempts, schedule_from, next_attempt_at, last_attempt_at, last_status_code, last_error, created_at, delivered_at'

/** The webhook_deliveries and webhook_attempts tables: the outbox and its log. */
export function createOutboxStore(sqlite: Database) {
  const insert = sqlite.query<never, [string, string, string, string, string, string, number, number]>(
    `INSERT INTO webhook_deliveries (id, client_id, endpoint_id, message_id, event_type, payload, status, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
  )
  const due = dueQueries(sqlite, 'webhook_deliveries', 'endpoint_id')
  const claimed = sqlite.query<ClaimedDelivery, [string]>(
    `SELECT d.id, d.client_id, d.endpoint_id, d.message_id, d.payload, d.attempts, d.schedule_from,
            e.url, e.secret_enc, e.previous_secret_enc, e.previous_expires_at, e.failing_since
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.id = ? AND d.status = 'pending' AND e.enabled = 1`,
  )
  const markSending = sqlite.query<never, [string]>("UPDATE webhook_deliveries SET status = 'sending' WHERE id = ?")
  const nextDue = sqlite.query<{ at: number | null }, []>("SELECT min(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending'")
  const releaseAll = sqlite.query<never, []>("UPDATE webhook_deliveries SET status = 'pending' WHERE status = 'sending'")
  const finish = sqlite.query<never, [string, number, number, number, number | null, string | null, string, string]>(
    // a retry for an endpoint disabled while this attempt was in flight is held, like its others
    `UPDATE webhook_deliveries
        SET status = CASE WHEN ?1 = 'pending' AND (SELECT enabled FROM webhook_endpoints e WHERE e.id = endpoint_id) = 0 THEN 'held' ELSE ?1 END,
            attempts = ?2, next_attempt_at = ?3, last_attempt_at = ?4, last_status_code = ?5, last_error = ?6,
            delivered_at = CASE WHEN ?1 = 'succeeded' THEN ?4 ELSE delivered_at END
      WHERE id = ?7 AND status = ?8`,
  )
  const insertAttempt = sqlite.query<never, [string, string, number, number, number | null, number, string | null, string | null]>(
    'INSERT INTO webhook_attempts (id, delivery_id, attempt, at, status_code, duration_ms, error, response_excerpt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const byId = sqlite.query<DeliveryRow, [string, string]>(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE client_id = ? AND id = ?`)
  const attempts = sqlite.query<AttemptRow, [string]>(
    'SELECT id, delivery_id, attempt, at, status_code, duration_ms, error, response_excerpt FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt',
  )
  const resend = sqlite.query<DeliveryRow, [number, string, string]>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, schedule_from = attempts
      WHERE client_id = ? AND id = ? AND status IN ('succeeded', 'failed', 'pending') RETURNING ${COLUMNS}`,
  )
  const hold = sqlite.query<never, [string]>("UPDATE webhook_deliveries SET status = 'held' WHERE endpoint_id = ? AND status = 'pending'")
  const unhold = sqlite.query<never, [number, string]>(
    "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = min(next_attempt_at, ?) WHERE endpoint_id = ? AND status = 'held'",
  )
  const pruneDeliveries = sqlite.query<never, [number]>("DELETE FROM webhook_deliveries WHERE status IN ('succeeded', 'failed') AND created_at < ?")

  return {
    /** the rows for one event, in one transaction: all of them stored, or none */
    enqueue: sqlite.transaction((rows: NewDelivery[]) => {
      for (const r of rows) insert.run(r.id, r.client_id, r.endpoint_id, r.message_id, r.event_type, r.payload, r.created_at, r.created_at)
    }),
    /** the clients with a delivery due at `now` */
    dueAccounts: due.dueAccounts,
    /** up to `limit` of a client's due deliveries, oldest due first, none to the endpoints in `skip` */
    dueOf: due.dueOf,
    /** marks a due delivery sending; null when it is gone, no longer pending, or its endpoint was disabled */
    take(id: string): ClaimedDelivery | null {
      const d = claimed.get(id)
      if (!d) return null
      markSending.run(id)
      return d
    },
    /** when the next pending delivery is due, or null when none is pending */
    nextDueAt: () => nextDue.get()?.at ?? null,
    /** at start: what the previous process had claimed is pending again (it may have been sent: receivers deduplicate on webhook-id) */
    releaseClaims: () => void releaseAll.run(),
    /**
     * An attempt's result on its delivery, and the attempt in the log (call inside a
     * transaction). False when the delivery is gone (its endpoint was deleted while the
     * attempt was in flight) or no longer claimed: then nothing is written, since an attempt
     * row for a deleted delivery would break its foreign key and, with it, the whole commit.
     */
    record(deliveryId: string, o: AttemptOutcome): boolean {
      const a = o.attempt
      if (!finish.run(o.status, a.attempt, o.nextAttemptAt, a.at, a.status_code, a.error, deliveryId, 'sending').changes) return false
      insertAttempt.run(a.id, deliveryId, a.attempt, a.at, a.status_code, a.duration_ms, a.error, a.response_excerpt)
      return true
    },
    byId: (clientId: string, id: string) => byId.get(clientId, id),
    attempts: (deliveryId: string) => attempts.all(deliveryId),
    page(clientId: string, filter: { endpointId?: string; status?: DeliveryState }, limit: number, offset: number) {
      const where = ['client_id = ?']
      const args: (string | number)[] = [clientId]
      if (filter.endpointId) where.push('endpoint_id = ?') && args.push(filter.endpointId)
      if (filter.status) where.push('status = ?') && args.push(filter.status)
      const w = where.join(' AND ')
      const items = sqlite
        .query<DeliveryRow, (string | number)[]>(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
        .all(...args, limit, offset)
      const total = sqlite.query<{ n: number }, (string | number)[]>(`SELECT count(*) AS n FROM webhook_deliveries WHERE ${w}`).get(...args)!.n
      return { items, total }
    },
    /** due again at `now` with a fresh schedule; null when there is no such delivery or it is being sent or held */
    resend: (clientId: string, id: string, now: number) => resend.get(now, clientId, id),
    hold: (endpointId: string) => void hold.run(endpointId),
    unhold: (endpointId: string, now: number) => void unhold.run(now, endpointId),
    /** finished deliveries created before `before` (their attempts go with them: ON DELETE CASCADE) */
    prune: (before: number) => pruneDeliveries.run(before).changes,
  }
}

export type OutboxStore = ReturnType<typeof createOutboxStore>
