import { randomBytes } from 'node:crypto'
import type { Config } from '../../src/config'
import type { DbHandle } from '../../src/db/connection'
import type { ChannelNotification } from '../../src/modules/channels/channels.model'
import { nodemailerTransport, type MailTransport } from '../../src/modules/channels/channels.transport'
import { testApp } from './app'
import { FAKE_PUBLIC_IP, publicRoute } from './outbound'
import { manualTimers } from './timers'

/** Names the fakes go by: they resolve to a public address, which the test fetch sends to 127.0.0.1. */
export const FAKE_NAMES = ['hooks.example.test', 'ntfy.example.test', 'gotify.example.test', 'api.example.test', 'mail.example.test', 'flows.example.test']

/**
 * A test app whose channels reach local fakes through the real outbound policy: the fakes'
 * names resolve to a public address, HTTP and SMTP connections to it go to 127.0.0.1, and the
 * fixed API hosts (Pushover, Telegram) point at `api.example.test:<port>`. Timers are manual.
 */
export function channelsTestApp(
  opts: {
    apiPort?: number
    outbound?: Config['outbound']
    mailOptions?: Record<string, unknown>
    names?: Record<string, string[]>
    /** a database to reuse (a restart on the same file); default a fresh in-memory one */
    db?: DbHandle
    secretKey?: Uint8Array
  } = {},
) {
  const route = publicRoute({ ...Object.fromEntries(FAKE_NAMES.map((n) => [n, [FAKE_PUBLIC_IP]])), ...opts.names })
  const timers = manualTimers()
  const mailConnections: string[] = []
  const mail: MailTransport = (options) => {
    mailConnections.push(String(options.host))
    const host = options.host === FAKE_PUBLIC_IP ? '127.0.0.1' : options.host
    return nodemailerTransport({ ...options, host, tls: { ...options.tls, ...(opts.mailOptions?.tls as object) } })
  }
  const api = opts.apiPort ? `http://api.example.test:${opts.apiPort}` : undefined
  const t = testApp({
    secretKey: opts.secretKey ?? new Uint8Array(randomBytes(32)),
    ...(opts.db ? { db: opts.db } : {}),
    resolve: route.resolve,
    fetch: route.fetch,
    timers: timers.timers,
    mail,
    channelApiBase: api ? { pushover: api, telegram: api } : {},
    ...(opts.outbound ? { config: { outbound: opts.outbound } } : {}),
  })
  return { ...t, route, timers, mailConnections, worker: t.modules.channelsWorker, channels: t.modules.channels }
}

export type ChannelsTestApp = ReturnType<typeof channelsTestApp>

/** A firing alert as the alerts module would word it. */
export const FIRING: ChannelNotification = {
  event: 'firing',
  severity: 'critical',
  title: 'CRITICAL: disk / above 90% on web-1',
  body: 'Disk / is at 93.4% (threshold 90%) since 2026-01-01 00:00 UTC.\nLargest growth: /var/log.',
  url: 'https://vigil.example.com/devices/dev_1',
  devices: [{ id: 'dev_1', name: 'web-1' }],
  rule: { id: 'rul_1', name: 'Disk almost full' },
  alert_ids: ['alr_1'],
  timestamp: '2026-01-01T00:05:00.000Z',
}
