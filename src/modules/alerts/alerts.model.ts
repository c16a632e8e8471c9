import { Type } from '@sinclair/typebox'
import { t, type Static } from 'elysia'

export const SEVERITIES = ['warning', 'critical'] as const
export const RULE_KINDS = ['threshold', 'offline', 'disk_forecast'] as const
export const OPERATORS = ['>', '>=', '<', '<='] as const
export const STATES = ['pending', 'firing', 'resolved'] as const
export type Severity = (typeof SEVERITIES)[number]
export type RuleKind = (typeof RULE_KINDS)[number]
export type AlertState = (typeof STATES)[number]

const Id = t.String({ minLength: 1, maxLength: 100 })
export const SeveritySchema = t.UnionEnum(SEVERITIES)
const ChannelIds = t.Array(Id, { maxItems: 20, description: 'notification channel ids (see /v1/channels)' })

export const ScopeSchema = t.Object(
  {
    type: t.UnionEnum(['all', 'tag', 'device'] as const),
    value: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 100, description: 'the tag, or the device id; null for all' }))),
  },
  { description: 'which devices: all of the account, those with a tag, or one device' },
)

const ruleFields = {
  name: t.String({ minLength: 1, maxLength: 100 }),
  enabled: t.Boolean(),
  severity: SeveritySchema,
  metric: t.Nullable(
    t.String({
      minLength: 1,
      maxLength: 200,
      description:
        'threshold rules: a numeric field (cpu_percent, ram_percent, cpu_temp_c, packet_loss_percent, …) or a nested series (disk_partitions:/home, disk_partitions:*, temperatures:*, interfaces:eth0:is_up, …), a container (container:*:running, container[label=value]:exit_code) or a disk’s S.M.A.R.T. (smart:*:failing)',
    }),
  ),
  operator: t.UnionEnum(OPERATORS),
  threshold: t.Nullable(t.Number({ description: 'threshold rules: the value that trips the rule' })),
  recovery_threshold: t.Nullable(t.Number({ description: 'threshold rules: where a firing alert resolves (hysteresis); null: the threshold' })),
  for_seconds: Type.Integer({ minimum: 0, maximum: 604_800, description: 'how long the value must stay past the threshold before the alert fires' }),
  offline_intervals: t.Nullable(Type.Integer({ minimum: 1, maximum: 1000, description: 'offline rules: reporting intervals without data' })),
  forecast_hours: t.Nullable(
    Type.Integer({ minimum: 1, maximum: 8760, description: 'disk_forecast rules: fire when a disk is predicted full within this many hours' }),
  ),
  scope: ScopeSchema,
  channel_ids: ChannelIds,
  repeat_seconds: t.Nullable(
    Type.Integer({ minimum: 60, maximum: 604_800, description: 'repeat the notice this often while firing and not acknowledged; null: never' }),
  ),
  notify_recovery: t.Boolean(),
  recovery_delay_seconds: Type.Integer({
    minimum: 0,
    maximum: 86_400,
    description: 'hold the recovery notice this long; a relapse meanwhile reopens the alert silently',
  }),
}

const opt = <T extends Record<string, import('@sinclair/typebox').TSchema>>(o: T) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, t.Optional(v)])) as { [K in keyof T]: import('@sinclair/typebox').TOptional<T[K]> }

export const RuleIn = t.Object({ ...opt(ruleFields), name: ruleFields.name, kind: t.Optional(t.UnionEnum(RULE_KINDS)) })
export const RulePatch = t.Object(opt(ruleFields))

export const OverrideIn = t.Object({
  enabled: t.Optional(t.Nullable(t.Boolean())),
  threshold: t.Optional(t.Nullable(t.Number())),
  recovery_threshold: t.Optional(t.Nullable(t.Number())),
  for_seconds: t.Optional(t.Nullable(Type.Integer({ minimum: 0, maximum: 604_800 }))),
  severity: t.Optional(t.Nullable(SeveritySchema)),
})
export const Override = t.Object({
  device_id: t.String(),
  enabled: t.Nullable(t.Boolean()),
  threshold: t.Nullable(t.Number()),
  recovery_threshold: t.Nullable(t.Number()),
  for_seconds: t.Nullable(Type.Integer()),
  severity: t.Nullable(SeveritySchema),
})

export const Rule = t.Object({
  id: t.String(),
  kind: t.UnionEnum(RULE_KINDS),
  ...ruleFields,
  builtin: t.Nullable(t.String({ description: 'the default rule this was made from, else null' })),
  scope_device_missing: t.Boolean({
    description: 'true when the rule is scoped to one device that no longer exists: it watches nothing until its scope is changed',
  }),
  overrides: t.Array(Override),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
})
export const RuleList = t.Object({ items: t.Array(Rule) })

const Ref = t.Object({ id: t.String(), name: t.String() })
export const AlertView = t.Object({
  id: t.String(),
  rule: t.Object({ id: t.String(), name: t.String(), severity: SeveritySchema }),
  device: Ref,
  metric: t.Nullable(t.String()),
  series: t.String({ description: 'the partition, sensor or interface for a family rule; empty otherwise' }),
  state: t.UnionEnum(STATES),
  value: t.Nullable(t.Number()),
  threshold: t.Nullable(t.Number()),
  started_at: t.String({
    format: 'date-time',
    description: 'pending since: when the value first crossed the threshold (the same instant as fired_at for a rule without for_seconds)',
  }),
  fired_at: t.Nullable(
    t.String({ format: 'date-time', description: 'when the alert fired: notices say "since" this time and count durations from it; null while pending' }),
  ),
  resolved_at: t.Nullable(t.String({ format: 'date-time' })),
  acknowledged: t.Nullable(t.Object({ by: t.String(), at: t.String({ format: 'date-time' }), note: t.String() })),
  silenced: t.Boolean(),
  suppressed_by: t.Nullable(t.String({ description: 'the gateway device whose outage hides this alert' })),
  context: t.Nullable(t.Record(t.String(), t.Unknown(), { description: 'what explains it: the sample that crossed, the top processes' })),
  last_notified_at: t.Nullable(
    t.String({
      format: 'date-time',
      description:
        'when the last firing or repeat notice was handled: queued for its channels, or none took it (the timeline says which: notified or not_notified); null before the first',
    }),
  ),
})
export const TimelineEvent = t.Object({
  at: t.String({ format: 'date-time' }),
  type: t.String({
    description:
      'pending, firing, resolved, reopened, acknowledged, silenced, suppressed, unsuppressed; notified (the note says how many channels the notice was queued for) or not_notified (the note says why no notice was queued)',
  }),
  value: t.Nullable(t.Number()),
  by: t.Nullable(t.String()),
  note: t.Nullable(t.String()),
})
export const AlertDetail = t.Object({ ...AlertView.properties, timeline: t.Array(TimelineEvent) })
export const AlertPage = t.Object({ items: t.Array(AlertView), limit: Type.Integer(), offset: Type.Integer(), total: Type.Integer() })

const DateTime = t.String({ format: 'date-time', maxLength: 40 })
export const AlertsQuery = t.Object({
  state: t.Optional(t.String({ pattern: '^(pending|firing|resolved)$', maxLength: 8, description: 'pending, firing or resolved' })),
  device_id: t.Optional(Id),
  rule_id: t.Optional(Id),
  since: t.Optional(DateTime),
  until: t.Optional(DateTime),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
})
export const HistoryQuery = t.Object({
  device_id: t.Optional(Id),
  rule_id: t.Optional(Id),
  since: t.Optional(DateTime),
  until: t.Optional(DateTime),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
})
export const HistoryEvent = t.Object({
  ...TimelineEvent.properties,
  alert_id: t.String(),
  rule: Ref,
  device: Ref,
  series: t.String(),
})
export const HistoryList = t.Object({ items: t.Array(HistoryEvent) })

export const AckIn = t.Object({ note: t.Optional(t.String({ maxLength: 1000 })) })

const silenceFields = {
  comment: t.String({ maxLength: 500 }),
  scope: ScopeSchema,
  rule_id: t.Nullable(Id),
  starts_at: t.Nullable(DateTime),
  ends_at: t.Nullable(DateTime),
  cron: t.Nullable(t.String({ minLength: 1, maxLength: 100, description: 'recurring: when each window opens (5 or 6 fields)' })),
  duration_seconds: t.Nullable(Type.Integer({ minimum: 60, maximum: 604_800, description: 'recurring: how long each window stays open' })),
  timezone: t.Nullable(t.String({ minLength: 1, maxLength: 64, description: 'recurring: IANA time zone of the pattern (default UTC)' })),
}
export const SilenceIn = t.Object(opt(silenceFields))
export const Silence = t.Object({
  id: t.String(),
  ...silenceFields,
  active: t.Boolean({ description: 'open right now' }),
  created_by: t.Nullable(t.String()),
  created_at: DateTime,
})
export const SilenceList = t.Object({ items: t.Array(Silence) })

export const Routing = t.Object(
  { warning: ChannelIds, critical: ChannelIds },
  { description: "channels every alert of a severity goes to, beside its rule's own" },
)
export const Settings = t.Object({
  routing: Routing,
  group_window_seconds: Type.Integer({ minimum: 0, maximum: 3600, description: 'notices of one rule within this window are sent as one' }),
})
export const SettingsPatch = t.Object(opt(Settings.properties))

export const Dependency = t.Object({ device_id: t.String(), parent_device_id: t.String() })
export const DependencyIn = t.Object({ parent_device_id: Id })
export const DependencyList = t.Object({ items: t.Array(Dependency) })

export const DefaultRule = t.Object({
  key: t.String(),
  name: t.String(),
  description: t.String(),
  rule_id: t.Nullable(t.String({ description: "this account's rule made from it; null when deleted" })),
})
export const DefaultList = t.Object({ items: t.Array(DefaultRule) })

export const RuleParams = t.Object({ rule_id: Id })
export const OverrideParams = t.Object({ rule_id: Id, device_id: Id })
export const AlertParams = t.Object({ alert_id: Id })
export const SilenceParams = t.Object({ silence_id: Id })
export const DeviceParams = t.Object({ device_id: Id })

export type RuleIn = Static<typeof RuleIn>
export type RulePatch = Static<typeof RulePatch>
export type Rule = Static<typeof Rule>
export type OverrideIn = Static<typeof OverrideIn>
export type AlertView = Static<typeof AlertView>
export type AlertDetail = Static<typeof AlertDetail>
export type AlertsQuery = Static<typeof AlertsQuery>
export type HistoryQuery = Static<typeof HistoryQuery>
export type SilenceIn = Static<typeof SilenceIn>
export type Silence = Static<typeof Silence>
export type Settings = Static<typeof Settings>
export type SettingsPatch = Static<typeof SettingsPatch>
export type ScopeIn = Static<typeof ScopeSchema>

/** The notice the channels module delivers (its ChannelNotification has the same shape). */
export interface AlertNotification {
  event: 'firing' | 'resolved' | 'acknowledged' | 'test' | 'digest'
  severity: 'info' | 'warning' | 'critical'
  title: string
  body: string
  url: string | null
  devices: { id: string; name: string }[]
  rule: { id: string; name: string } | null
  alert_ids: string[]
  timestamp: string
}
