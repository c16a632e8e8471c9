/** The alerts tables' rows as both engines' stores hand them back (integers as numbers, 0/1 flags as on SQLite). */

export interface RuleRow {
  id: string
  client_id: string
  name: string
  enabled: number
  kind: string
  metric: string | null
  operator: string | null
  threshold: number | null
  recovery_threshold: number | null
  for_seconds: number
  offline_intervals: number | null
  forecast_hours: number | null
  severity: string
  scope_type: string
  scope_value: string | null
  channel_ids: string
  repeat_seconds: number | null
  notify_recovery: number
  recovery_delay_seconds: number
  builtin: string | null
  created_at: number
  updated_at: number
}

export interface OverrideRow {
  rule_id: string
  device_id: string
  client_id: string
  enabled: number | null
  threshold: number | null
  recovery_threshold: number | null
  for_seconds: number | null
  severity: string | null
  updated_at: number
}

export interface AlertRow {
  id: string
  client_id: string
  rule_id: string
  device_id: string
  series: string
  state: string
  severity: string
  value: number | null
  threshold: number | null
  started_at: number
  fired_at: number | null
  resolved_at: number | null
  ack_by: string | null
  ack_at: number | null
  ack_note: string | null
  suppressed_by: string | null
  context: string | null
  last_notified_at: number | null
  recovery_due_at: number | null
}

export interface EventRow {
  alert_id: string
  at: number
  type: string
  value: number | null
  by: string | null
  note: string | null
}

export interface SilenceRow {
  id: string
  client_id: string
  comment: string
  scope_type: string
  scope_value: string | null
  rule_id: string | null
  starts_at: number | null
  ends_at: number | null
  cron: string | null
  duration_seconds: number | null
  timezone: string | null
  created_by: string | null
  created_at: number
}

export interface SettingsRow {
  client_id: string
  routing: string
  group_window_seconds: number
  defaults_created_at: number | null
}

export interface DependencyRow {
  device_id: string
  client_id: string
  parent_device_id: string
}

export interface AlertFilter {
  state: string | null
  deviceId: string | null
  ruleId: string | null
  since: number | null
  until: number | null
}

/** A transition's timeline entry, written in the same transaction as the change it tells. */
export type NewEvent = Omit<EventRow, 'alert_id'>

/** A history row: an event with the alert it belongs to. */
export type HistoryRow = EventRow & { rule_id: string; device_id: string; series: string }

export const RULE_COLS =
  'id, client_id, name, enabled, kind, metric, operator, threshold, recovery_threshold, for_seconds, offline_intervals, forecast_hours, severity, scope_type, scope_value, channel_ids, repeat_seconds, notify_recovery, recovery_delay_seconds, builtin, created_at, updated_at'
export const ALERT_COLS =
  'id, client_id, rule_id, device_id, series, state, severity, value, threshold, started_at, fired_at, resolved_at, ack_by, ack_at, ack_note, suppressed_by, context, last_notified_at, recovery_due_at'
export const SILENCE_COLS =
  'id, client_id, comment, scope_type, scope_value, rule_id, starts_at, ends_at, cron, duration_seconds, timezone, created_by, created_at'
export const OVERRIDE_COLS = 'rule_id, device_id, client_id, enabled, threshold, recovery_threshold, for_seconds, severity, updated_at'
export const SETTINGS_COLS = 'client_id, routing, group_window_seconds, defaults_created_at'
