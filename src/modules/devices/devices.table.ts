import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'

/** A monitored machine. One per (client, fingerprint): re-registration updates it. */
export const devices = sqliteTable(
  'devices',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    fingerprint: text('fingerprint').notNull(),
    hostname: text('hostname'),
    os: text('os'),
    osVersion: text('os_version'),
    arch: text('arch'),
    macAddress: text('mac_address'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    lastSeenAt: integer('last_seen_at'),
    /** small integer handle metric rows use instead of the 36-char id (assigned at registration) */
    seq: integer('seq'),
    /** what the portal shows instead of the hostname; null shows the hostname */
    name: text('name'),
    /** the tenant's labels for grouping and filtering, a JSON array of strings */
    tags: text('tags').notNull().default('[]'),
  },
  (t) => [uniqueIndex('devices_client_fingerprint').on(t.clientId, t.fingerprint), uniqueIndex('devices_seq').on(t.seq)],
)

/**
 * When each device last reported (server time), apart from its wide row: the group commit writes
 * it for every device seen once every 30 s, and 100 devices' rows of `devices` spread over several
 * pages, each written to the WAL and again by the checkpoint (on SQLite that was about a third of
 * what ingest wrote per sample), where this table's rows of 100 devices fit in one page. Reads take
 * the newer of this and devices.last_seen_at (what earlier versions and PostgreSQL hubs write).
 */
export const deviceSeen = sqliteTable('device_seen', {
  seq: integer('seq')
    .primaryKey()
    .references(() => devices.seq, { onDelete: 'cascade' }),
  at: integer('at').notNull(),
})

/**
 * Hands out devices.seq values that are never reused (AUTOINCREMENT), so a cached reference
 * to a deleted device can never point at another device's metrics.
 */
export const deviceSeqs = sqliteTable('device_seqs', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
})
