import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'
import { devices } from '../devices/devices.table'

/**
 * An alert rule of a client. `kind` picks what it watches: a threshold on a metric (`metric`
 * names a hot field or a nested series such as `disk_partitions:/` or `temperatures:*`), a
 * device that stopped reporting (`offline_intervals`), or a disk predicted full
 * (`forecast_hours`). Built-in defaults are ordinary rows with `builtin` set.
 */
export const alertRules = sqliteTable(
  'alert_rules',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enabled: integer('enabled').notNull().default(1),
    /** threshold | offline | disk_forecast */
    kind: text('kind').notNull(),
    metric: text('metric'),
    /** > | >= | < | <= */
    operator: text('operator'),
    threshold: real('threshold'),
    /** where a firing alert resolves (hysteresis); null: the threshold itself */
    recoveryThreshold: real('recovery_threshold'),
    forSeconds: integer('for_seconds').notNull().default(0),
    offlineIntervals: integer('offline_intervals'),
    forecastHours: integer('forecast_hours'),
    /** warning | critical */
    severity: text('severity').notNull(),
    /** all | tag | device */
    scopeType: text('scope_type').notNull().default('all'),
    scopeValue: text('scope_value'),
    /** JSON array of channel ids */
    channelIds: text('channel_ids').notNull().default('[]'),
    /** seconds between repeated notices while firing and unacknowledged; null: never */
    repeatSeconds: integer('repeat_seconds'),
    notifyRecovery: integer('notify_recovery').notNull().default(1),
    recoveryDelaySeconds: integer('recovery_delay_seconds').notNull().default(0),
    /** the default rule this row was made from (offline, disk_full, …), else null */
    builtin: text('builtin'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('alert_rules_client').on(t.clientId), uniqueIndex('alert_rules_client_builtin').on(t.clientId, t.builtin)],
)

/** What one device changes of a rule: each null column keeps the rule's own value. */
export const alertRuleOverrides = sqliteTable(
  'alert_rule_overrides',
  {
    ruleId: text('rule_id')
      .notNull()
      .references(() => alertRules.id, { onDelete: 'cascade' }),
    deviceId: text('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    enabled: integer('enabled'),
    threshold: real('threshold'),
    recoveryThreshold: real('recovery_threshold'),
    forSeconds: integer('for_seconds'),
    severity: text('severity'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.deviceId] })],
)

/**
 * One alert: a rule tripped on one device (and one series of it: a partition, a sensor, an
 * interface; '' for a plain field). pending → firing → resolved; a pending alert that clears
 * before its duration is deleted, not kept.
 */
export const alerts = sqliteTable(
  'alerts',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    ruleId: text('rule_id')
      .notNull()
      .references(() => alertRules.id, { onDelete: 'cascade' }),
    /**
     * the alert's subject: a device, or a service check (its chk_ id). No foreign key, as it names
     * either; the alerts of a deleted device or check are removed by its deletion (forgetSubject).
     */
    deviceId: text('device_id').notNull(),
    series: text('series').notNull().default(''),
    /** pending | firing | resolved */
    state: text('state').notNull(),
    severity: text('severity').notNull(),
    value: real('value'),
    threshold: real('threshold'),
    startedAt: integer('started_at').notNull(),
    firedAt: integer('fired_at'),
    resolvedAt: integer('resolved_at'),
    ackBy: text('ack_by'),
    ackAt: integer('ack_at'),
    ackNote: text('ack_note'),
    /** the device whose own outage hides this one (a gateway), else null */
    suppressedBy: text('suppressed_by'),
    /** JSON: the sample and top processes when it fired */
    context: text('context'),
    lastNotifiedAt: integer('last_notified_at'),
    /** when the recovery notice is due (delayed recovery); null: none pending */
    recoveryDueAt: integer('recovery_due_at'),
  },
  (t) => [
    index('alerts_client_state').on(t.clientId, t.state),
    index('alerts_client_started').on(t.clientId, t.startedAt),
    index('alerts_device_started').on(t.deviceId, t.startedAt),
    index('alerts_rule_started').on(t.ruleId, t.startedAt),
  ],
)

/** The timeline of an alert: state changes, notices sent, acknowledgements. */
export const alertEvents = sqliteTable(
  'alert_events',
  {
    id: integer('id').primaryKey(),
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    at: integer('at').notNull(),
    /** pending | firing | resolved | acknowledged | notified | silenced | suppressed | reopened */
    type: text('type').notNull(),
    value: real('value'),
    by: text('by'),
    note: text('note'),
  },
  (t) => [index('alert_events_alert').on(t.alertId, t.at)],
)

/**
 * A silence or maintenance window: notices for matching alerts are held while it is active.
 * One-off (starts_at..ends_at) or recurring (cron in `timezone`, for duration_seconds).
 */
export const alertSilences = sqliteTable(
  'alert_silences',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    comment: text('comment').notNull().default(''),
    scopeType: text('scope_type').notNull().default('all'),
    scopeValue: text('scope_value'),
    ruleId: text('rule_id').references(() => alertRules.id, { onDelete: 'cascade' }),
    startsAt: integer('starts_at'),
    endsAt: integer('ends_at'),
    cron: text('cron'),
    durationSeconds: integer('duration_seconds'),
    timezone: text('timezone'),
    createdBy: text('created_by'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('alert_silences_client').on(t.clientId)],
)

/** Per client: severity routing, the grouping window, and whether the default rules were made. */
export const alertSettings = sqliteTable('alert_settings', {
  clientId: text('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  /** JSON {warning: [channel ids], critical: [channel ids]} */
  routing: text('routing').notNull().default('{"warning":[],"critical":[]}'),
  groupWindowSeconds: integer('group_window_seconds').notNull().default(60),
  defaultsCreatedAt: integer('defaults_created_at'),
})

/** A device that is reached through another (a gateway): its offline alert waits behind the gateway's. */
export const alertDependencies = sqliteTable(
  'alert_dependencies',
  {
    deviceId: text('device_id')
      .primaryKey()
      .references(() => devices.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    parentDeviceId: text('parent_device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
  },
  (t) => [index('alert_dependencies_client').on(t.clientId)],
)
