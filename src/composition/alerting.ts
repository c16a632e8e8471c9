import type { AppContext } from '../context'
import { systemTimers, type Timers } from '../lib/timers'
import type { RenderEnv } from '../modules/channels/channels.kind'
import type { ChannelsDeps } from '../modules/channels/channels.service'
import { createChannelsStore } from '../modules/channels/channels.store'
import { nodemailerTransport, type MailTransport } from '../modules/channels/channels.transport'
import { createDeliveryWorker } from '../modules/channels/channels.worker'
import { isOperatorClient } from '../modules/users/users.service'
import { VERSION } from '../version'
import type { IdentityModules } from './identity'

/** How long one delivery attempt may take, connection to answer. */
const CHANNEL_TIMEOUT_MS = 10_000

/** What a test may swap in the channels module. */
export interface ChannelsOverrides {
  timers?: Timers
  /** the SMTP transport factory; default nodemailer's */
  mail?: MailTransport
  /** fixed API hosts (Pushover, Telegram) pointed at local fakes */
  apiBase?: RenderEnv['apiBase']
}

/**
 * Notification channels: their settings, the durable delivery queue and its worker. The
 * worker is built here and started by whoever runs the server (src/cli/serve.ts), so a test
 * app or a CLI command never sends on its own.
 */
export function wireChannels(ctx: AppContext, identity: IdentityModules, overrides: ChannelsOverrides = {}) {
  let wake = () => {}
  const channels: ChannelsDeps = {
    store: createChannelsStore(ctx.db.sqlite),
    clock: ctx.clock,
    logger: ctx.logger,
    secretKey: ctx.secretKey,
    transport: {
      outbound: ctx.outbound,
      mail: overrides.mail ?? nodemailerTransport,
      timeoutMs: CHANNEL_TIMEOUT_MS,
      clientName: new URL(ctx.config.siteUrl).hostname,
      now: () => ctx.clock.now(),
    },
    allowPrivate: ctx.config.outbound.allowPrivate,
    isOperatorClient: (clientId) => isOperatorClient(identity.users, clientId),
    env: { version: VERSION, apiBase: overrides.apiBase ?? {} },
    wake: () => wake(),
  }
  const worker = createDeliveryWorker(channels, overrides.timers ?? systemTimers)
  wake = worker.wake
  return { channels, channelsWorker: worker }
}

export type ChannelsModules = ReturnType<typeof wireChannels>
