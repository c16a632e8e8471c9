import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'

/**
 * Where a client's events are POSTed. The signing secrets are sealed (lib/secret-box, bound to
 * the client id); during a rotation the previous one keeps signing beside the new one until
 * `previous_expires_at`.
 */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    /** JSON array of event type names */
    eventTypes: text('event_types').notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    /** why it is disabled: manual | gone (it answered 410) | failing (every delivery failed for days) */
    disabledReason: text('disabled_reason'),
    disabledAt: integer('disabled_at'),
    secretEnc: text('secret_enc').notNull(),
    previousSecretEnc: text('previous_secret_enc'),
    previousExpiresAt: integer('previous_expires_at'),
    /** the first failed attempt since the last success; null while deliveries succeed */
    failingSince: integer('failing_since'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('webhook_endpoints_client').on(t.clientId)],
)

/**
 * The durable outbox: one row per (endpoint, event), written in the same synchronous step that
 * hears the event, so an event acknowledged by the bus survives a kill -9. `message_id` is the
 * `webhook-id` header: the same on every attempt and resend, what a receiver deduplicates on.
 * The payload is stored as sent, so every attempt signs the same bytes.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    messageId: text('message_id').notNull(),
    eventType: text('event_type').notNull(),
    payload: text('payload').notNull(),
    /** pending | sending (claimed by the worker; pending again after a restart) | succeeded | failed */
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** the attempt count when the current retry schedule began (a resend starts a new one) */
    scheduleFrom: integer('schedule_from').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    lastAttemptAt: integer('last_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    deliveredAt: integer('delivered_at'),
  },
  (t) => [
    // covers the worker's scan for due rows (endpoint_id included: no table read to pass over a busy endpoint)
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt, t.endpointId),
    // one account's due rows without passing over anyone else's (the delivery core claims per account)
    index('webhook_deliveries_account_due').on(t.clientId, t.status, t.nextAttemptAt, t.endpointId),
    index('webhook_deliveries_client').on(t.clientId, t.createdAt),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.createdAt),
  ],
)

/** Every attempt of a delivery: what the receiver answered (an excerpt), or why none came. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    at: integer('at').notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
    responseExcerpt: text('response_excerpt'),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId, t.attempt)],
)
