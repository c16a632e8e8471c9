import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { devices } from '../devices/devices.table'

/**
 * What a device's collector last said of S.M.A.R.T. (at most every 30 minutes): whether
 * smartctl could be run, and why not. One row per device; deleting the device cascades.
 */
export const diskReports = sqliteTable('disk_reports', {
  deviceId: text('device_id')
    .primaryKey()
    .references(() => devices.id, { onDelete: 'cascade' }),
  clientId: text('client_id').notNull(),
  available: integer('available').notNull(),
  unavailableReason: text('unavailable_reason'),
  /** the recorded_at of the newest report: an older one (a replay) is not applied */
  ts: integer('ts').notNull(),
})

/**
 * Each disk's readings, one row per device, disk and report: the newest is the disk's health
 * now, the older ones say whether reallocated sectors are rising. Kept as long as raw samples.
 */
export const diskReadings = sqliteTable(
  'disk_readings',
  {
    deviceId: text('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    name: text('name').notNull(),
    ts: integer('ts').notNull(),
    model: text('model'),
    serial: text('serial'),
    kind: text('kind').notNull(),
    capacityBytes: real('capacity_bytes'),
    /** 1 passed, 0 failed, null unknown */
    passed: integer('passed'),
    temperatureC: real('temperature_c'),
    powerOnHours: integer('power_on_hours'),
    reallocatedSectors: integer('reallocated_sectors'),
    pendingSectors: integer('pending_sectors'),
    uncorrectableSectors: integer('uncorrectable_sectors'),
    nvmePercentageUsed: real('nvme_percentage_used'),
    nvmeMediaErrors: integer('nvme_media_errors'),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.name, t.ts] }), index('disk_readings_client_ts').on(t.clientId, t.ts)],
)
