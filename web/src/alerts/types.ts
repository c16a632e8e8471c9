/**
 * The shapes the alerting pages read, derived from the server's own TypeBox models (type-only
 * imports: nothing of the server enters the bundle), so a field renamed there fails the
 * portal's typecheck instead of reading undefined here.
 */
import type { Static } from '@sinclair/typebox'
import type * as AlertsModel from '../../../src/modules/alerts/alerts.model'
import type * as ChannelsModel from '../../../src/modules/channels/channels.model'
import type * as WebhooksModel from '../../../src/modules/webhooks/webhooks.model'

export type { AlertState, RuleKind, Severity } from '../../../src/modules/alerts/alerts.model'
export type Operator = (typeof AlertsModel.OPERATORS)[number]

export type Scope = Static<typeof AlertsModel.ScopeSchema>
export type RuleOverride = Static<typeof AlertsModel.Override>
export type Rule = Static<typeof AlertsModel.Rule>

/**
 * What the engine kept when the alert fired: the sample that crossed and the top processes. The
 * server declares `context` as an open record; these are the keys the detail page reads from it.
 */
export interface AlertContext {
  sample?: { kind: string | null; recorded_at: string; values: Record<string, number | string | boolean> }
  top_processes?: unknown
  [key: string]: unknown
}

export type AlertView = Omit<Static<typeof AlertsModel.AlertView>, 'context'> & { context: AlertContext | null }
export type Ref = AlertView['device']
export type TimelineEvent = Static<typeof AlertsModel.TimelineEvent>
export type AlertDetail = AlertView & { timeline: TimelineEvent[] }
export type HistoryEvent = Static<typeof AlertsModel.HistoryEvent>
export type Silence = Static<typeof AlertsModel.Silence>
export type AlertSettings = Static<typeof AlertsModel.Settings>
export type DefaultRule = Static<typeof AlertsModel.DefaultRule>

/** A page of a list, as every paged endpoint answers it (AlertPage, DeliveryPage, …). */
export type Page<T> = Omit<Static<typeof AlertsModel.AlertPage>, 'items'> & { items: T[] }

/** A device as the pickers need it: the fields of GET /v1/clients/me/devices they read. */
export type { DeviceRef } from '../devices/device-types'

// ---- channels ----

export type ChannelKind = ChannelsModel.KindId
export type ChannelSeverity = ChannelsModel.Severity
export type KindField = Static<typeof ChannelsModel.KindField>
export type KindInfo = Static<typeof ChannelsModel.KindInfo>
export type Channel = ChannelsModel.ChannelView
export type ChannelAttempt = Static<typeof ChannelsModel.AttemptView>
export type ChannelDelivery = ChannelsModel.DeliveryView
export type ChannelTestResult = ChannelsModel.TestResult

// ---- webhooks ----

export type WebhookEndpoint = WebhooksModel.EndpointResponse
export type WebhookDelivery = WebhooksModel.DeliveryResponse
export type WebhookAttempt = Static<typeof WebhooksModel.AttemptResponse>
export type WebhookDeliveryDetail = WebhooksModel.DeliveryDetail
export type EventTypeInfo = Static<typeof WebhooksModel.EventTypeInfo>
