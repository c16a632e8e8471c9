import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'

/** A client's notification channels: where alerts are sent, one kind and its settings each. */
export const channels = sqliteTable(
  'channels',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind').notNull(),
    /** the non-secret settings, JSON */
    config: text('config').notNull(),
    /** the secret settings as one JSON object, AES-256-GCM sealed (lib/secret-box) for this client and channel; null when none */
    secretsEnc: text('secrets_enc'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    /** info | warning | critical: notifications below it are not sent here */
    minSeverity: text('min_severity').notNull().default('info'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('channels_client').on(t.clientId, t.createdAt)],
)

/**
 * The durable queue and its log: one row per notification and channel, written before the
 * caller returns and worked off by the delivery worker (it survives a restart).
 */
export const channelDeliveries = sqliteTable(
  'channel_deliveries',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    severity: text('severity').notNull(),
    /** the ChannelNotification, JSON */
    notification: text('notification').notNull(),
    /** pending | sending | delivered | failed */
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** when the next attempt is due (pending only) */
    nextAttemptAt: integer('next_attempt_at'),
    createdAt: integer('created_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [
    index('channel_deliveries_due').on(t.status, t.nextAttemptAt),
    index('channel_deliveries_channel').on(t.channelId, t.createdAt),
    // one account's due rows without passing over anyone else's (the delivery core claims per account)
    index('channel_deliveries_account_due').on(t.clientId, t.status, t.nextAttemptAt, t.channelId),
  ],
)

/** Every attempt at a delivery: what the service answered, or why no answer came. */
export const channelAttempts = sqliteTable(
  'channel_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => channelDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    at: integer('at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    httpStatus: integer('http_status'),
    /** ok | http_error | rate_limited | refused | unreachable | redirect | invalid | error */
    outcome: text('outcome').notNull(),
    error: text('error'),
    /** the first 256 characters of the answer, the channel's secrets removed */
    excerpt: text('excerpt'),
  },
  (t) => [index('channel_attempts_delivery').on(t.deliveryId, t.attempt)],
)
