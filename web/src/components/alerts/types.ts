/**
 * The shapes the alerting pages read, as the API answers them (src/modules/alerts, channels,
 * webhooks: their *.model.ts files and /openapi.json are the source).
 */

export type Severity = 'warning' | 'critical'
export type RuleKind = 'threshold' | 'offline' | 'disk_forecast'
export type Operator = '>' | '>=' | '<' | '<='
export type AlertState = 'pending' | 'firing' | 'resolved'

export interface Scope {
  type: 'all' | 'tag' | 'device'
  value?: string | null
}

export interface RuleOverride {
  device_id: string
  enabled: boolean | null
  threshold: number | null
  recovery_threshold: number | null
  for_seconds: number | null
  severity: Severity | null
}

export interface Rule {
  id: string
  kind: RuleKind
  name: string
  enabled: boolean
  severity: Severity
  metric: string | null
  operator: Operator
  threshold: number | null
  recovery_threshold: number | null
  for_seconds: number
  offline_intervals: number | null
  forecast_hours: number | null
  scope: Scope
  channel_ids: string[]
  repeat_seconds: number | null
  notify_recovery: boolean
  recovery_delay_seconds: number
  builtin: string | null
  overrides: RuleOverride[]
  /** the one device the rule watches was deleted: it checks nothing (absent on an older hub) */
  scope_device_missing?: boolean
  created_at: string
  updated_at: string
}

export interface Ref {
  id: string
  name: string
}

export interface AlertView {
  id: string
  rule: Ref & { severity: Severity }
  device: Ref
  metric: string | null
  series: string
  state: AlertState
  value: number | null
  threshold: number | null
  started_at: string
  fired_at: string | null
  resolved_at: string | null
  acknowledged: { by: string; at: string; note: string } | null
  silenced: boolean
  suppressed_by: string | null
  context: AlertContext | null
  last_notified_at: string | null
}

/** What the engine kept when the alert fired: the sample that crossed and the top processes. */
export interface AlertContext {
  sample?: { kind: string | null; recorded_at: string; values: Record<string, number | string | boolean> }
  top_processes?: unknown
  [key: string]: unknown
}

export interface TimelineEvent {
  at: string
  type: string
  value: number | null
  by: string | null
  note: string | null
}

export interface AlertDetail extends AlertView {
  timeline: TimelineEvent[]
}

export interface Page<T> {
  items: T[]
  limit: number
  offset: number
  total: number
}

export interface HistoryEvent extends TimelineEvent {
  alert_id: string
  rule: Ref
  device: Ref
  series: string
}

export interface Silence {
  id: string
  comment: string
  scope: Scope
  rule_id: string | null
  starts_at: string | null
  ends_at: string | null
  cron: string | null
  duration_seconds: number | null
  timezone: string | null
  active: boolean
  created_by: string | null
  created_at: string
}

export interface AlertSettings {
  routing: { warning: string[]; critical: string[] }
  group_window_seconds: number
}

export interface DefaultRule {
  key: string
  name: string
  description: string
  rule_id: string | null
}

/** A device as the pickers need it (GET /v1/clients/me/devices). */
export interface DeviceRef {
  device_id: string
  name: string | null
  hostname: string | null
  tags?: string[]
}

// ---- channels ----

export type ChannelKind = 'webhook' | 'email' | 'ntfy' | 'gotify' | 'discord' | 'slack' | 'telegram' | 'teams' | 'pushover'
export type ChannelSeverity = 'info' | 'warning' | 'critical'

export interface KindField {
  name: string
  label: string
  type: 'string' | 'url' | 'email' | 'integer' | 'boolean' | 'enum' | 'string_list'
  required: boolean
  secret: boolean
  default: string | number | boolean | null
  description: string
  options?: string[]
  minimum?: number
  maximum?: number
}

export interface KindInfo {
  id: ChannelKind
  name: string
  description: string
  shoutrrr: string
  fields: KindField[]
}

export interface Channel {
  id: string
  name: string
  kind: ChannelKind
  enabled: boolean
  min_severity: ChannelSeverity
  config: Record<string, string | number | boolean | string[]>
  secrets: Record<string, string>
  created_at: string
  updated_at: string
}

export interface ChannelAttempt {
  attempt: number
  at: string
  duration_ms: number
  http_status: number | null
  outcome: string
  error: string | null
  excerpt: string | null
}

export interface ChannelDelivery {
  id: string
  channel_id: string
  event: string
  severity: ChannelSeverity
  title: string
  status: 'pending' | 'sending' | 'delivered' | 'failed'
  attempts: ChannelAttempt[]
  next_attempt_at: string | null
  created_at: string
  finished_at: string | null
}

export interface ChannelTestResult {
  ok: boolean
  delivery_id: string
  http_status: number | null
  outcome: string
  error: string | null
  duration_ms: number
}

// ---- webhooks ----

export interface WebhookEndpoint {
  id: string
  url: string
  description: string
  event_types: string[]
  enabled: boolean
  disabled_reason: 'manual' | 'gone' | 'failing' | null
  disabled_at: string | null
  /** the whsec_ secret: only in the answers to create and rotate */
  secret: string | null
  secret_hint: string
  previous_secret_expires_at: string | null
  failing_since: string | null
  created_at: string
  updated_at: string
}

export interface WebhookDelivery {
  id: string
  endpoint_id: string
  message_id: string
  event_type: string
  status: 'pending' | 'sending' | 'held' | 'succeeded' | 'failed'
  attempts: number
  next_attempt_at: string | null
  last_attempt_at: string | null
  last_status_code: number | null
  last_error: string | null
  created_at: string
  delivered_at: string | null
}

export interface WebhookAttempt {
  attempt: number
  at: string
  status_code: number | null
  duration_ms: number
  error: string | null
  response_excerpt: string | null
}

export interface WebhookDeliveryDetail extends WebhookDelivery {
  payload: unknown
  attempt_log: WebhookAttempt[]
}

export interface EventTypeInfo {
  type: string
  description: string
}
