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
export interface ClaimedDelivery
  extends Pick<DeliveryRow, 'id' | 'client_id' | 'endpoint_id' | 'message_id' | 'payload' | 'attempts' | 'schedule_from' | 'next_attempt_at'> {
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

export const DELIVERY_COLUMNS =
  'id, client_id, endpoint_id, message_id, event_type, payload, status, attempts, schedule_from, next_attempt_at, last_attempt_at, last_status_code, last_error, created_at, delivered_at'
const ATTEMPT_COLUMNS = 'id, delivery_id, attempt, at, status_code, duration_ms, error, response_excerpt'
/** a claimed delivery joined with its endpoint (`d`, `e`) */
export const CLAIMED_COLUMNS = `d.id, d.client_id, d.endpoint_id, d.message_id, d.payload, d.attempts, d.schedule_from, d.next_attempt_at,
  e.url, e.secret_enc, e.previous_secret_enc, e.previous_expires_at, e.failing_since`

/**
 * The webhook_deliveries and webhook_attempts tables, the outbox and its log, on either engine
 * (this file: SQLite; webhooks.outbox.pg.ts: PostgreSQL). Tenant reads filter by client_id; the
 * worker's writes name a delivery it claimed. Claiming itself is the engine's: webhookClaimSource
 * below on SQLite, deliveries.due.pg.ts on PostgreSQL.
 */
export interface OutboxStore {
  /** the rows for one event, in one transaction: all of them stored, or none */
  enqueue(rows: NewDelivery[]): Promise<void>
  /**
   * One event of a client: its enabled endpoints subscribed to `type` (oldest first) are read and
   * `rowsFor` (synchronous) makes their rows, written in the same transaction. Returns the
   * endpoints written for. On SQLite it is all done when the call returns.
   */
  enqueueEvent(clientId: string, type: string, rowsFor: (endpointIds: string[]) => NewDelivery[]): Promise<string[]>
  /** these deliveries with their endpoints' settings (a worker's claim); ids that are gone are skipped */
  claimedIn(ids: string[]): Promise<ClaimedDelivery[]>
  /** when the next pending delivery is due, or null when none is pending */
  nextDueAt(): Promise<number | null>
  /** at a single hub's start: what the previous process had claimed is pending again (receivers deduplicate on webhook-id) */
  releaseClaims(): Promise<void>
  /**
   * An attempt's result on its delivery, the attempt in the log and the endpoint's failure
   * record, in one transaction, on a row still `sending` with the next_attempt_at its claimer
   * saw (`held`: the lease on PostgreSQL). Null (nothing written) when the delivery is gone or
   * another worker holds it now; else when the endpoint's failures began (null after a success
   * or a 410, whose endpoint is disabled instead).
   */
  record(deliveryId: string, held: number, o: AttemptOutcome, failure: 'clear' | 'mark' | 'none'): Promise<{ failingSince: number | null } | null>
  byId(clientId: string, id: string): Promise<DeliveryRow | null>
  /** a delivery's attempts, in order; none for another client's */
  attempts(clientId: string, deliveryId: string): Promise<AttemptRow[]>
  /** newest first, with how many match */
  page(
    clientId: string,
    filter: { endpointId?: string; status?: DeliveryState },
    limit: number,
    offset: number,
  ): Promise<{ items: DeliveryRow[]; total: number }>
  /** due again at `now` with a fresh schedule; null when there is no such delivery or it is being sent or held */
  resend(clientId: string, id: string, now: number): Promise<DeliveryRow | null>
  /** finished deliveries created before `before` (their attempts go with them: ON DELETE CASCADE); how many */
  prune(before: number): Promise<number>
}

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createOutboxStore(sqlite: Database): OutboxStore {
  const insert = sqlite.query<never, [string, string, string, string, string, string, number, number]>(
    `INSERT INTO webhook_deliveries (id, client_id, endpoint_id, message_id, event_type, payload, status, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
  )
  const claimedIn = sqlite.query<ClaimedDelivery, [string]>(
    `SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id IN (SELECT value FROM json_each(?))`,
  )
  const nextDue = sqlite.query<{ at: number | null }, []>("SELECT min(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending'")
  const releaseAll = sqlite.query<never, []>("UPDATE webhook_deliveries SET status = 'pending' WHERE status = 'sending'")
  const finish = sqlite.query<{ endpoint_id: string }, [string, number, number, number, number | null, string | null, string, number]>(
    // a retry for an endpoint disabled while this attempt was in flight is held, like its others
    `UPDATE webhook_deliveries
        SET status = CASE WHEN ?1 = 'pending' AND (SELECT enabled FROM webhook_endpoints e WHERE e.id = endpoint_id) = 0 THEN 'held' ELSE ?1 END,
            attempts = ?2, next_attempt_at = ?3, last_attempt_at = ?4, last_status_code = ?5, last_error = ?6,
            delivered_at = CASE WHEN ?1 = 'succeeded' THEN ?4 ELSE delivered_at END
      WHERE id = ?7 AND status = 'sending' AND next_attempt_at = ?8 RETURNING endpoint_id`,
  )
  const insertAttempt = sqlite.query<never, [string, string, number, number, number | null, number, string | null, string | null]>(
    `INSERT INTO webhook_attempts (${ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const markFailing = sqlite.query<{ failing_since: number }, [number, string]>(
    'UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = ? RETURNING failing_since',
  )
  const markHealthy = sqlite.query<never, [string]>('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL')
  const byId = sqlite.query<DeliveryRow, [string, string]>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE client_id = ? AND id = ?`)
  const attempts = sqlite.query<AttemptRow, [string, string]>(
    `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts
      WHERE delivery_id = (SELECT id FROM webhook_deliveries WHERE client_id = ? AND id = ?) ORDER BY attempt`,
  )
  const resend = sqlite.query<DeliveryRow, [number, string, string]>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, schedule_from = attempts
      WHERE client_id = ? AND id = ? AND status IN ('succeeded', 'failed', 'pending') RETURNING ${DELIVERY_COLUMNS}`,
  )
  const pruneDeliveries = sqlite.query<never, [number]>("DELETE FROM webhook_deliveries WHERE status IN ('succeeded', 'failed') AND created_at < ?")
  const enqueue = sqlite.transaction((rows: NewDelivery[]) => {
    for (const r of rows) insert.run(r.id, r.client_id, r.endpoint_id, r.message_id, r.event_type, r.payload, r.created_at, r.created_at)
  })
  const subscribers = sqlite.query<{ id: string }, [string, string]>(
    `SELECT id FROM webhook_endpoints e WHERE client_id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM json_each(e.event_types) WHERE value = ?)
      ORDER BY created_at, id`,
  )
  const enqueueEvent = sqlite.transaction((clientId: string, type: string, rowsFor: (endpointIds: string[]) => NewDelivery[]) => {
    const ids = subscribers.all(clientId, type).map((r) => r.id)
    if (ids.length) enqueue(rowsFor(ids))
    return ids
  })
  const record = sqlite.transaction((deliveryId: string, held: number, o: AttemptOutcome, failure: 'clear' | 'mark' | 'none') => {
    const a = o.attempt
    const done = finish.get(o.status, a.attempt, o.nextAttemptAt, a.at, a.status_code, a.error, deliveryId, held)
    if (!done) return null
    insertAttempt.run(a.id, deliveryId, a.attempt, a.at, a.status_code, a.duration_ms, a.error, a.response_excerpt)
    if (failure === 'clear') markHealthy.run(done.endpoint_id)
    return { failingSince: failure === 'mark' ? (markFailing.get(a.at, done.endpoint_id)?.failing_since ?? a.at) : null }
  })

  return {
    async enqueue(rows) {
      enqueue(rows)
    },
    enqueueEvent: async (clientId, type, rowsFor) => enqueueEvent(clientId, type, rowsFor),
    claimedIn: async (ids) => (ids.length ? claimedIn.all(JSON.stringify(ids)) : []),
    nextDueAt: async () => nextDue.get()?.at ?? null,
    releaseClaims: async () => void releaseAll.run(),
    record: async (deliveryId, held, o, failure) => record(deliveryId, held, o, failure),
    byId: async (clientId, id) => byId.get(clientId, id),
    attempts: async (clientId, deliveryId) => attempts.all(clientId, deliveryId),
    async page(clientId, filter, limit, offset) {
      const where = ['client_id = ?']
      const args: (string | number)[] = [clientId]
      if (filter.endpointId) where.push('endpoint_id = ?') && args.push(filter.endpointId)
      if (filter.status) where.push('status = ?') && args.push(filter.status)
      const w = where.join(' AND ')
      const items = sqlite
        .query<DeliveryRow, (string | number)[]>(
          `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
        )
        .all(...args, limit, offset)
      const total = sqlite.query<{ n: number }, (string | number)[]>(`SELECT count(*) AS n FROM webhook_deliveries WHERE ${w}`).get(...args)!.n
      return { items, total }
    },
    resend: async (clientId, id, now) => resend.get(now, clientId, id),
    prune: async (before) => pruneDeliveries.run(before).changes,
  }
}

/**
 * The SQLite claim side of the outbox, for the worker's claimer (deliveries.claim.ts):
 * synchronous, run inside the worker's claim transaction. PostgreSQL claims with
 * deliveries.due.pg.ts instead.
 */
export function webhookClaimSource(sqlite: Database) {
  const due = dueQueries(sqlite, 'webhook_deliveries', 'endpoint_id')
  const claimed = sqlite.query<ClaimedDelivery, [string]>(
    `SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.id = ? AND d.status = 'pending' AND e.enabled = 1`,
  )
  const markSending = sqlite.query<never, [string]>("UPDATE webhook_deliveries SET status = 'sending' WHERE id = ?")
  return {
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
  }
}
