import type { AlertNotification } from '../alerts.model'

/** What the runtime needs of the other domains; declared here, by their consumer, and filled by the composition root. */

/** A device as the alerts module needs it from the devices module. */
export interface AlertDevice {
  id: string
  /** its display name (the name set in the portal, else the hostname) */
  name: string
  tags: string[]
  lastSeenAt: number | null
  /** 'check': a service check as an alert's subject (no offline rule, no per-device override) */
  subject?: 'check'
}

/** What the alerts module needs of the devices domain. */
export interface AlertDevices {
  find(clientId: string, deviceId: string): AlertDevice | null
  list(clientId: string): AlertDevice[] | Promise<AlertDevice[]>
}

/**
 * What the alerts module needs of the metrics domain: hourly averages of disk_used_percent, oldest
 * first, over the last `hours`. Asynchronous: on PostgreSQL it is a query (the tick awaits it).
 */
export interface AlertMetrics {
  diskTrend(clientId: string, deviceId: string, hours: number): Promise<{ t: number; avg: number }[]>
}

/** Queues a notice for these channels; answers how many channels it was queued for (disabled ones and those above their severity are skipped). */
export type Notify = (clientId: string, channelIds: string[], n: AlertNotification) => number | Promise<number>
