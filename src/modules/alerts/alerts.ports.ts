import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import type { AlertsStore } from './alerts.store'
import type { AlertRuntime } from './runtime/alerts.runtime'
import type { SelectorCompiler } from './runtime/alerts.selectors'

import type { AlertDevices } from './runtime/alerts.runtime-ports'

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
  channels: { unknown(clientId: string, ids: string[]): string[] | Promise<string[]> }
  /** how a rule's metric is read (the runtime's compiler, with every source's); default: the metric selectors */
  selectors?: SelectorCompiler
}
