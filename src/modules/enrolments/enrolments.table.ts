import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'
import { devices } from '../devices/devices.table'

/**
 * One-time enrolment tokens for `curl …/install.sh | sudo sh -s -- --token …`: the token itself
 * is never stored, only its SHA-256. Redeeming sets used_at and the device it enrolled.
 */
export const enrolments = sqliteTable(
  'enrolments',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    /** the member who asked for it */
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    deviceId: text('device_id').references(() => devices.id, { onDelete: 'set null' }),
  },
  (t) => [index('enrolments_client').on(t.clientId)],
)
