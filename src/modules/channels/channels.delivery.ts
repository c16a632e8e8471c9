import { notFound } from '../../http/errors'
import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { completeDelivery, sendDelivery } from './channels.attempt'
import { SEVERITY_RANK } from './channels.kind-spec'
import type { ChannelNotification, DeliveryView, Severity, TestResult } from './channels.model'
import type { ChannelsDeps } from './channels.service'
import type { AttemptRow, DeliveryRow } from './channels.store'

const rankOf = (s: string) => SEVERITY_RANK[s as Severity] ?? 0

/** The client's enabled channels that take notifications of this severity (for rules that name no channels). */
export async function channelsForSeverity(deps: ChannelsDeps, clientId: string, severity: Severity): Promise<string[]> {
  return (await deps.store.channels(clientId)).filter((c) => c.enabled === 1 && rankOf(severity) >= rankOf(c.min_severity)).map((c) => c.id)
}

/**
 * Queues `n` for each of these channels that belongs to the client, is enabled and takes its
 * severity: one row per channel, written in one transaction before this returns (they
 * survive a restart), then the worker is woken. Returns the delivery ids. Ids of other
 * clients' channels are skipped silently: the caller's list comes from its own rules.
 */
export async function enqueueNotification(deps: ChannelsDeps, clientId: string, channelIds: string[], n: ChannelNotification): Promise<string[]> {
  if (!channelIds.length) return []
  const targets = (await deps.store.channelsIn(clientId, [...new Set(channelIds)])).filter(
    (c) => c.enabled === 1 && rankOf(n.severity) >= rankOf(c.min_severity),
  )
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
  await deps.store.addDeliveries(rows)
  deps.wake(
    clientId,
    targets.map((c) => c.id),
  )
  return rows.map((r) => r.id)
}

/** "Send test": a `test` notification to this channel now, whatever its severity filter, logged like any delivery. */
export async function sendTest(deps: ChannelsDeps, clientId: string, channelId: string, siteUrl: string): Promise<TestResult> {
  const channel = await deps.store.channel(clientId, channelId)
  if (!channel) throw notFound('Channel')
  deps.sendNow('channels', clientId)
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
  await deps.store.addDeliveries([row])
  const started = performance.now()
  const result = await sendDelivery(deps, row)
  const durationMs = Math.round(performance.now() - started)
  await completeDelivery(deps, row, result, { at: now, durationMs }, { retries: false })
  return {
    ok: result.ok,
    delivery_id: row.id,
    http_status: result.status,
    outcome: result.outcome,
    error: result.error,
    duration_ms: durationMs,
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

export async function deliveriesPage(deps: ChannelsDeps, clientId: string, channelId: string, q: { limit: number; offset: number; status?: string }) {
  if (!(await deps.store.channel(clientId, channelId))) throw notFound('Channel')
  const { items, attempts, total } = await deps.store.deliveries(clientId, channelId, q.status ?? null, q.limit, q.offset)
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
