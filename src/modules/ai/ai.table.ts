import { index, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'

/**
 * A client's language-model settings. A null column means "inherit": the connection
 * (provider, model, base_url, api_key) from the instance default, the rest from built-in defaults.
 */
export const aiConfigs = sqliteTable('ai_configs', {
  clientId: text('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  provider: text('provider'),
  model: text('model'),
  baseUrl: text('base_url'),
  /** AES-256-GCM sealed (lib/secret-box), never the plaintext */
  apiKeyEnc: text('api_key_enc'),
  temperature: real('temperature'),
  maxTokens: integer('max_tokens'),
  schedule: text('schedule'),
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
  prompt: text('prompt'),
  lastRunAt: integer('last_run_at'),
  updatedAt: integer('updated_at').notNull(),
})

/** One row per language-model call (reserved as `pending` before the call, so budgets hold under concurrency). */
export const aiUsage = sqliteTable(
  'ai_usage',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    /** no FK: the log outlives a deleted device */
    deviceId: text('device_id'),
    kind: text('kind').notNull(), // generate | test
    provider: text('provider').notNull(),
    model: text('model'),
    tokensIn: integer('tokens_in'),
    tokensOut: integer('tokens_out'),
    latencyMs: integer('latency_ms'),
    /** pending | ok | provider_error | timeout | invalid_output | too_large | refused | network_error */
    status: text('status').notNull(),
    error: text('error'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('ai_usage_client_created').on(t.clientId, t.createdAt)],
)
