import type { Severity } from '../alerts.model'
import type { ClientRules } from './alerts.compiled-rules'
import { buildNotice, type NoticeItem } from './alerts.notice-text'
import type { Runtime } from './alerts.runtime-state'
import { event, isSilenced, refresh } from './alerts.transitions'
import type { ClaimedNotice } from '../alerts.store'

/**
 * Notices: what is due now goes out grouped per rule and kind; a silenced or suppressed
 * alert's notice waits (the tick offers it again), and what trips within a rule's grouping
 * window is held until the window closes. Before a notice goes, each of its alerts is claimed
 * in the database (alerts.store.ts claimNotice): of several hubs offering the same notice, one
 * sends it; the others drop the item and take the stored row.
 */
export async function dispatch(rt: Runtime, batch: NoticeItem[], now: number) {
  const { state } = rt
  const byKey = new Map<string, NoticeItem[]>()
  for (const item of batch) {
    const cr = state.clients.get(item.alert.client_id)
    if (!cr) continue
    if (item.kind !== 'acknowledged' && item.kind !== 'resolved') {
      if (item.alert.suppressed_by !== null) continue
      if (isSilenced(rt, cr, item.alert)) {
        if (!state.silencedNoted.has(item.alert.id)) {
          state.silencedNoted.add(item.alert.id)
          await event(rt, item.alert, 'silenced', now)
        }
        continue
      }
    }
    const key = `${item.alert.client_id}\u0000${item.rule.id}\u0000${item.kind}`
    let list = byKey.get(key)
    if (!list) byKey.set(key, (list = []))
    list.push(item)
  }
  for (const [key, items] of byKey) {
    const cr = state.clients.get(items[0]!.alert.client_id)!
    const due = state.groups.offer(key, items, now, cr.groupWindowMs)
    if (due.length === 0) for (const i of items) state.held.add(i.alert.id)
    await send(rt, cr, due, now)
  }
}

/** Groups whose window closed: each is one notice now. */
export async function flushGroups(rt: Runtime, now: number) {
  for (const g of rt.state.groups.flush(now)) {
    const cr = rt.state.clients.get(g.items[0]!.alert.client_id)
    if (cr) await send(rt, cr, g.items, now)
  }
}

/** The items this hub may send: each claimed once across hubs (an acknowledgement was won by the request that made it). */
async function claim(rt: Runtime, items: NoticeItem[], now: number): Promise<NoticeItem[]> {
  const won: NoticeItem[] = []
  for (const i of items) {
    if (i.kind === 'acknowledged') won.push(i)
    else if (await rt.deps.store.claimNotice(i.kind as ClaimedNotice, i.alert, now)) {
      if (i.kind === 'resolved') i.alert.recovery_due_at = null
      else i.alert.last_notified_at = now
      won.push(i)
    } else {
      rt.state.held.delete(i.alert.id)
      await refresh(rt, i.alert)
    }
  }
  return won
}

/** One notice for these items, to the rule's channels and the severity's; the timeline says what was queued. */
export async function send(rt: Runtime, cr: ClientRules, offered: NoticeItem[], now: number) {
  if (offered.length === 0) return
  const items = await claim(rt, offered, now)
  if (items.length === 0) return
  const { logger } = rt.deps
  const first = items[0]!
  const severity = first.alert.severity as Severity
  const channels = [...new Set([...first.rule.channelIds, ...(cr.routing[severity] ?? [])])]
  const n = buildNotice(items, now, rt.deps.siteUrl)
  // the timeline tells what was queued, not what was meant: the count comes back from the queue
  let queued = 0
  let why = `no channel is chosen for this rule or for ${severity} alerts`
  if (channels.length) {
    try {
      queued = await rt.deps.notify(first.alert.client_id, channels, n)
      why = `none of its ${channels.length} channel(s) is enabled and takes ${severity} notices`
    } catch (err) {
      why = 'it could not be queued (the log has the error)'
      logger.error('alert notice failed', { client_id: first.alert.client_id, error: (err as Error).message })
    }
  }
  const grouped = items.length > 1 ? ` (grouped with ${items.length - 1} more)` : ''
  for (const i of items) {
    if (queued > 0) await event(rt, i.alert, 'notified', now, { note: `${i.kind} notice${grouped} queued for ${queued} channel(s)` })
    // with no channel chosen at all, the first notice says so; its repeats and recovery would only echo it
    else if (channels.length || i.kind === 'firing') await event(rt, i.alert, 'not_notified', now, { note: `no ${i.kind} notice was sent: ${why}` })
  }
  for (const i of items) {
    rt.state.held.delete(i.alert.id)
    if (i.alert.state === 'resolved' && i.alert.recovery_due_at === null) rt.state.open.delete(i.alert.id)
  }
}
