import { notFound } from '../../http/errors'
import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { SEVERITY_RANK, type KindSpec, type OutboundRequest, type Settings } from './channels.kind'
import type { ChannelNotification, DeliveryView, Severity, TestResult } from './channels.model'
import { channelPolicy, kindOf, settingsOf, type ChannelsDeps } from './channels.service'
import type { AttemptRow, ChannelRow, DeliveryRow } from './channels.store'
import { failure, sendRequest, type SendResult } from './channels.transport'

/**
 * After the first attempt (at once), three more: 30 s, 5 min and 30 min later, so a service
 * that is down for a restart or a short outage still gets the alert while it matters.
 */
export const RETRY_DELAYS_MS = [30_000, 5 * 60_000, 30 * 60_000]
/** A Retry-After longer than this is not waited for: the alert would be stale. */
const MAX_RETRY_AFTER_MS = 60 * 60_000

const rankOf = (s: string) => SEVERITY_RANK[s as Severity] ?? 0

/** The client's enabled channels that take notifications of this severity (for rules that name no channels). */
export function channelsForSeverity(deps: ChannelsDeps, clientId: string, severity: Severity): string[] {
  return deps.store
    .channels(clientId)
    .filter((c) => c.enabled === 1 && rankOf(severity) >= rankOf(c.min_severity))
    .map((c) => c.id)
}

/**
 * Queues `n` for each of these channels that belongs to the client, is enabled and takes its
 * severity: one row per channel, written in one transaction before this returns (they
 * survive a restart), then the worker is woken. Returns the delivery ids. Ids of other
 * clients' channels are skipped silently: the caller's list comes from its own rules.
 */
export function enqueueNotification(deps: ChannelsDeps, clientId: string, channelIds: string[], n: ChannelNotification): string[] {
  if (!channelIds.length) return []
  const targets = deps.store.channelsIn(clientId, [...new Set(channelIds)]).filter((c) => c.enabled === 1 && rankOf(n.severity) >= rankOf(c.min_severity))
  if (!targets.length) return []
  const now = deps.clock.now()
  const notification = JSON.stringify(n)
  const rows = targets.map((c) => ({
    id: newId('dlv'),
    client_id: clientId,
    channel_id: c.id,
    event: n.event,
    severity: n.severity,
    notification,
    status: 'pending',
    next_attempt_at: now,
    created_at: now,
  }))
  deps.store.addDeliveries(rows)
  deps.wake()
  return rows.map((r) => r.id)
}

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

async function sendTo(deps: ChannelsDeps, channel: ChannelRow | null, n: ChannelNotification): Promise<SendResult> {
  if (!channel) return refusedLocally('the channel no longer exists')
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
  return sendRequest(deps.transport, channelPolicy(deps, channel.client_id), request, secretValues(kind, settings))
}

/**
 * One attempt at a delivery this worker holds, then its new state: delivered; pending again
 * at the next step of the schedule (or later, when the service said Retry-After); or failed
 * when the answer says retrying cannot help or the schedule is spent.
 */
export async function attemptDelivery(deps: ChannelsDeps, row: DeliveryRow, opts: { retries: boolean } = { retries: true }): Promise<SendResult> {
  const channel = deps.store.channel(row.client_id, row.channel_id) ?? null
  const n = JSON.parse(row.notification) as ChannelNotification
  const at = deps.clock.now()
  const started = performance.now()
  const result =
    channel && channel.enabled !== 1 && n.event !== 'test'
      ? refusedLocally('the channel was disabled before the notification went out')
      : await sendTo(deps, channel, n)
  const attempts = row.attempts + 1
  const now = deps.clock.now()
  const delay = RETRY_DELAYS_MS[attempts - 1]
  let status = result.ok ? 'delivered' : 'failed'
  let nextAttemptAt: number | null = null
  if (!result.ok && result.retry && opts.retries && delay !== undefined) {
    status = 'pending'
    nextAttemptAt = now + Math.max(delay, Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS))
  }
  deps.store.settle(
    row.id,
    { status, attempts, nextAttemptAt, finishedAt: status === 'pending' ? null : now },
    {
      id: newId('dla'),
      delivery_id: row.id,
      attempt: attempts,
      at,
      duration_ms: Math.round(performance.now() - started),
      http_status: result.status,
      outcome: result.outcome,
      error: result.error,
      excerpt: result.excerpt,
    },
  )
  if (!result.ok) {
    deps.logger.warn('channel delivery attempt failed', {
      delivery_id: row.id,
      channel_id: row.channel_id,
      kind: channel?.kind ?? null,
      attempt: attempts,
      outcome: result.outcome,
      http_status: result.status,
      detail: result.detail,
      next: status,
    })
  }
  return result
}

/** "Send test": a `test` notification to this channel now, whatever its severity filter, logged like any delivery. */
export async function sendTest(deps: ChannelsDeps, clientId: string, channelId: string, siteUrl: string): Promise<TestResult> {
  const channel = deps.store.channel(clientId, channelId)
  if (!channel) throw notFound('Channel')
  const now = deps.clock.now()
  const n: ChannelNotification = {
    event: 'test',
    severity: 'info',
    title: `Test notification from Vigil`,
    body: `This is a test of the channel "${channel.name}". If you can read it, Vigil's alerts will reach you here.`,
    url: siteUrl,
    devices: [],
    rule: null,
    alert_ids: [],
    timestamp: toIso(now),
  }
  // 'sending' with no due time: the worker never picks it up, even after a restart
  const row: DeliveryRow = {
    id: newId('dlv'),
    client_id: clientId,
    channel_id: channelId,
    event: 'test',
    severity: 'info',
    notification: JSON.stringify(n),
    status: 'sending',
    attempts: 0,
    next_attempt_at: null,
    created_at: now,
    finished_at: null,
  }
  deps.store.addDeliveries([row])
  const started = performance.now()
  const result = await attemptDelivery(deps, row, { retries: false })
  return {
    ok: result.ok,
    delivery_id: row.id,
    http_status: result.status,
    outcome: result.outcome,
    error: result.error,
    duration_ms: Math.round(performance.now() - started),
  }
}

const attemptView = (a: AttemptRow) => ({
  attempt: a.attempt,
  at: toIso(a.at),
  duration_ms: a.duration_ms,
  http_status: a.http_status,
  outcome: a.outcome,
  error: a.error,
  excerpt: a.excerpt,
})

export function deliveriesPage(deps: ChannelsDeps, clientId: string, channelId: string, q: { limit: number; offset: number; status?: string }) {
  if (!deps.store.channel(clientId, channelId)) throw notFound('Channel')
  const { items, attempts, total } = deps.store.deliveries(clientId, channelId, q.status ?? null, q.limit, q.offset)
  const byDelivery = Map.groupBy(attempts, (a) => a.delivery_id)
  const views: DeliveryView[] = items.map((d) => ({
    id: d.id,
    channel_id: d.channel_id,
    event: d.event,
    severity: d.severity as Severity,
    title: (JSON.parse(d.notification) as ChannelNotification).title,
    status: d.status as DeliveryView['status'],
    attempts: (byDelivery.get(d.id) ?? []).map(attemptView),
    next_attempt_at: d.next_attempt_at === null || d.status !== 'pending' ? null : toIso(d.next_attempt_at),
    created_at: toIso(d.created_at),
    finished_at: d.finished_at === null ? null : toIso(d.finished_at),
  }))
  return { items: views, limit: q.limit, offset: q.offset, total }
}
