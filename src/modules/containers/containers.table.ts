import { sql } from 'drizzle-orm'
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { devices } from '../devices/devices.table'

/**
 * What a device's collector last said of its container engine: one row per device, replaced by
 * each newer block. Deleting the device cascades here, as to everything below.
 */
export const containerEngines = sqliteTable('container_engines', {
  deviceId: text('device_id')
    .primaryKey()
    .references(() => devices.id, { onDelete: 'cascade' }),
  clientId: text('client_id').notNull(),
  kind: text('kind'),
  version: text('version'),
  apiVersion: text('api_version'),
  unavailableReason: text('unavailable_reason'),
  memoryAccounting: integer('memory_accounting').notNull(),
  /** the newest block's recorded_at: an older block (a replay) never moves the inventory back */
  ts: integer('ts').notNull(),
})

/**
 * The inventory: one row per device and container name (a re-created container keeps its row,
 * history and series), holding the newest figures. `seq` keys the packed series. `attention`
 * is computed when written, so the fleet list reads "needs attention first" in index order.
 */
export const containers = sqliteTable(
  'containers',
  {
    seq: integer('seq').primaryKey(),
    id: text('id').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    engineId: text('engine_id').notNull(),
    image: text('image').notNull(),
    labels: text('labels').notNull(),
    state: text('state').notNull(),
    health: text('health').notNull(),
    exitCode: integer('exit_code'),
    oomKilled: integer('oom_killed').notNull(),
    restartCount: integer('restart_count').notNull(),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
    cpuPercent: real('cpu_percent'),
    memoryUsedBytes: real('memory_used_bytes'),
    memoryLimitBytes: real('memory_limit_bytes'),
    netRx: real('net_rx'),
    netTx: real('net_tx'),
    blockRead: real('block_read'),
    blockWrite: real('block_write'),
    pids: integer('pids'),
    attention: integer('attention').notNull(),
    firstSeenAt: integer('first_seen_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    goneAt: integer('gone_at'),
    /** 1 when the container was running as it went: only such a disappearance is an outage (`:missing`) */
    goneRunning: integer('gone_running').notNull().default(0),
  },
  (t) => [
    uniqueIndex('containers_id').on(t.id),
    uniqueIndex('containers_device_name').on(t.deviceId, t.name),
    // the fleet list's default order, read in index order (no sort) and counted from the index alone
    index('containers_client_attention').on(t.clientId, sql`${t.attention} DESC`, t.deviceId, t.name, t.state),
  ],
)

/** Each container's state history: created, started, stopped, unhealthy, healthy, restarted, oom_killed, gone. */
export const containerEvents = sqliteTable(
  'container_events',
  {
    id: integer('id').primaryKey(),
    containerSeq: integer('container_seq')
      .notNull()
      .references(() => containers.seq, { onDelete: 'cascade' }),
    ts: integer('ts').notNull(),
    kind: text('kind').notNull(),
    exitCode: integer('exit_code'),
    restartCount: integer('restart_count'),
    engineId: text('engine_id').notNull(),
  },
  (t) => [index('container_events_seq_ts').on(t.containerSeq, t.ts)],
)

/**
 * The containers' series, packed: one row per device, level and time, whose blob holds every
 * container's figures of that moment (see containers.pack.ts). Level 0 is the raw block, 1 the
 * per-minute and 2 the hourly averages. (device_seq, level, ts) is the key: a replayed block
 * the hub holds is not stored twice.
 */
export const containerSeries = sqliteTable(
  'container_series',
  {
    deviceSeq: integer('device_seq')
      .notNull()
      .references(() => devices.seq, { onDelete: 'cascade' }),
    level: integer('level').notNull(),
    ts: integer('ts').notNull(),
    data: blob('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceSeq, t.level, t.ts] })],
)
