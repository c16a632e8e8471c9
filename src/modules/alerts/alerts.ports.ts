import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import type { AlertNotification } from './alerts.model'
import type { AlertsStore } from './alerts.store'
import type { AlertRuntime } from './runtime/alerts.runtime'

/** A device as the alerts module needs it from the devices module. */
export interface AlertDevice {
  id: string
  /** its display name (the name set in the portal, else the hostname) */
  name: string
  tags: string[]
  lastSeenAt: number | null
}

/** What the alerts module needs of the devices domain. */
export interface AlertDevices {
  find(clientId: string, deviceId: string): AlertDevice | null
  list(clientId: string): AlertDevice[]
}

/** What the alerts module needs of the metrics domain: hourly averages of disk_used_percent, oldest first. */
export interface AlertMetrics {
  diskTrend(clientId: string, deviceId: string, hours: number): { t: number; avg: number }[]
}

/** Queues a notice for these channels; answers how many channels it was queued for (disabled ones and those above their severity are skipped). */
export type Notify = (clientId: string, channelIds: string[], n: AlertNotification) => number

/** What the alerts services need: the store, the runtime, and the other domains through their ports. */
export interface AlertsDeps {
  store: AlertsStore
  clock: Clock
  logger: Logger
  runtime: AlertRuntime
  devices: AlertDevices
  /** who acknowledged, in words (an email); null leaves the user id */
  users: { emailOf(userId: string): string | null }
  /** the channels module's answer to "which of these ids are not this client's channels" */
  channels: { unknown(clientId: string, ids: string[]): string[] }
}
