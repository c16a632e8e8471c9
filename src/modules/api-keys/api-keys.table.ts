import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'
import { devices } from '../devices/devices.table'

/** Collector credentials: the key itself is never stored, only its SHA-256. */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyPrefix: text('key_prefix').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    /** JSON array of scope strings */
    scopes: text('scopes').notNull(),
    deviceId: text('device_id').references(() => devices.id, { onDelete: 'set null' }),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    expiresAt: integer('expires_at'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('api_keys_client').on(t.clientId)],
)
