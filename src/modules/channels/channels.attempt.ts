import { newId } from '../../lib/ids'
import { retryDelay } from '../deliveries/deliveries.schedule'
import type { KindSpec, OutboundRequest, Settings } from './channels.kind-spec'
import type { ChannelNotification } from './channels.model'
import { channelPolicy, kindOf, settingsOf, type ChannelsDeps } from './channels.service'
import type { ChannelRow, DeliveryRow } from './channels.store'
import { failure, sendRequest, type SendResult } from './channels.transport'

/**
 * After the first attempt (at once), three more, each within 30 s, 5 min and 30 min of the
 * last (full jitter, deliveries/deliveries.schedule), so a service that is down for a restart
 * or a short outage still gets the alert while it matters.
 */
export const RETRY_DELAYS_MS = [30_000, 5 * 60_000, 30 * 60_000]
/** A Retry-After longer than this is not waited for: the alert would be stale. */
const MAX_RETRY_AFTER_MS = 60 * 60_000

/**
 * What to scrub from anything logged or shown: each secret field's value and its parts that
 * are secret on their own, since an answer may echo only a part (a webhook URL's token path
 * segment or sig= parameter, the half of a bot token after the colon).
 */
function secretValues(kind: KindSpec, s: Settings): string[] {
  const out = new Set<string>()
  for (const f of kind.fields) {
    const v = s[f.name]
    if (!f.secret || typeof v !== 'string') continue
    out.add(v)
    const parts = v.split(':')
    if (URL.canParse(v) && /^https?:/.test(v)) {
      const u = new URL(v)
      parts.push(...u.pathname.split('/'), ...u.searchParams.values())
    }
    // long, not just digits: a token, not "webhooks" or a numeric ID that is no secret on its own
    for (const p of parts) if (p.length >= 16 && !/^\d+$/.test(p)) out.add(p)
  }
  // longest first, so a whole value goes before the parts it contains
  return [...out].sort((a, b) => b.length - a.length)
}

const refusedLocally = (error: string): SendResult => failure('invalid', error)

/** Renders a delivery for its channel's kind and sends it under the client's policy; never throws. */
export async function sendDelivery(deps: ChannelsDeps, row: DeliveryRow, stop?: AbortSignal): Promise<SendResult> {
  const channel: ChannelRow | null = await deps.store.channel(row.client_id, row.channel_id)
  const n = JSON.parse(row.notification) as ChannelNotification
  if (!channel) return refusedLocally('the channel no longer exists')
  if (channel.enabled !== 1 && n.event !== 'test') return refusedLocally('the channel was disabled before the notification went out')
  const settings = settingsOf(deps, channel)
  if (settings === null) return refusedLocally("the channel's secrets cannot be read with this server's key: enter them again")
  const kind = kindOf(channel)
  let request: OutboundRequest
  try {
    request = kind.render(settings, n, deps.env)
  } catch (err) {
    deps.logger.error('channel could not render a notification', { channel_id: channel.id, kind: kind.id, error: (err as Error).message })
    return refusedLocally('the notification could not be prepared for this channel')
  }
  const scope = { policy: channelPolicy(deps, channel.client_id), audience: deps.isOperatorClient(channel.client_id) ? 'operator' : 'tenant', stop } as const
  return sendRequest(deps.transport, scope, request, secretValues(kind, settings))
}

/**
 * An attempt's result on its delivery: delivered; pending again at the next step of the
 * schedule (or later, when the service said Retry-After); or failed when the answer says
 * retrying cannot help or the schedule is spent. Nothing is written for a delivery deleted
 * with its channel while the attempt was under way, nor for one another worker claimed since.
 */
export async function completeDelivery(
  deps: ChannelsDeps,
  row: DeliveryRow,
  result: SendResult,
  timing: { at: number; durationMs: number },
  opts: { retries: boolean; random?: () => number } = { retries: true },
): Promise<void> {
  const attempts = row.attempts + 1
  const now = deps.clock.now()
  const delay =
    result.retry && opts.retries ? retryDelay(RETRY_DELAYS_MS, attempts, (opts.random ?? Math.random)(), result.retryAfterMs, MAX_RETRY_AFTER_MS) : null
  const status = result.ok ? 'delivered' : delay === null ? 'failed' : 'pending'
  const written = await deps.store.settle(
    row.id,
    row.next_attempt_at,
    { status, attempts, nextAttemptAt: delay === null ? null : now + delay, finishedAt: status === 'pending' ? null : now },
    {
      id: newId('dla'),
      delivery_id: row.id,
      attempt: attempts,
      at: timing.at,
      duration_ms: timing.durationMs,
      http_status: result.status,
      outcome: result.outcome,
      error: result.error,
      excerpt: result.excerpt,
    },
  )
  if (!written || result.ok) return
  deps.logger.warn('channel delivery attempt failed', {
    delivery_id: row.id,
    channel_id: row.channel_id,
    attempt: attempts,
    outcome: result.outcome,
    http_status: result.status,
    detail: result.detail,
    next: status,
  })
}
