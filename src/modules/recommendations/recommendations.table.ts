import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'
import { devices } from '../devices/devices.table'

/** Advice for a device (or, with device_id null, for the whole client), from collectors, rules or a language model. */
export const recommendations = sqliteTable(
  'recommendations',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    deviceId: text('device_id').references(() => devices.id, { onDelete: 'cascade' }),
    recommendation: text('recommendation').notNull(),
    category: text('category').notNull().default('general'),
    /** info | warning | critical */
    severity: text('severity').notNull().default('info'),
    /** collector | rules | a provider name */
    source: text('source').notNull(),
    /** JSON object: the numbers and window behind the advice */
    evidence: text('evidence'),
    /** stable identity of an engine finding, so the same finding is not stored twice within a day */
    dedupeKey: text('dedupe_key'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('recommendations_client_device_created').on(t.clientId, t.deviceId, t.createdAt),
    index('recommendations_dedupe').on(t.clientId, t.deviceId, t.dedupeKey, t.createdAt),
  ],
)
