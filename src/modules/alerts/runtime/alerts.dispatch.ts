import type { Severity } from '../alerts.model'
import type { ClientRules } from './alerts.compiled-rules'
import { buildNotice, type NoticeItem } from './alerts.notice-text'
import type { Runtime } from './alerts.runtime-state'
import { event, isSilenced } from './alerts.transitions'

/**
 * Notices: what is due now goes out grouped per rule and kind; a silenced or suppressed
 * alert's notice waits (the tick offers it again), and what trips within a rule's grouping
 * window is held until the window closes.
 */
export function dispatch(rt: Runtime, batch: NoticeItem[], now: number) {
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
          event(rt, item.alert, 'silenced', now)
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
    send(rt, cr, due, now)
  }
}

/** Groups whose window closed: each is one notice now. */
export function flushGroups(rt: Runtime, now: number) {
  for (const g of rt.state.groups.flush(now)) {
    const cr = rt.state.clients.get(g.items[0]!.alert.client_id)
    if (cr) send(rt, cr, g.items, now)
  }
}

/** One notice for these items, to the rule's channels and the severity's; the timeline says what was queued. */
export function send(rt: Runtime, cr: ClientRules, items: NoticeItem[], now: number) {
  if (items.length === 0) return
  const { store, logger } = rt.deps
  const first = items[0]!
  const severity = first.alert.severity as Severity
  const channels = [...new Set([...first.rule.channelIds, ...(cr.routing[severity] ?? [])])]
  const n = buildNotice(items, now, rt.deps.siteUrl)
  // the timeline tells what was queued, not what was meant: the count comes back from the queue
  const none = `no channel is chosen for this rule or for ${severity} alerts`
  const failed = (err: unknown) => {
    logger.error('alert notice failed', { client_id: first.alert.client_id, error: (err as Error).message })
    return { queued: 0, why: 'it could not be queued (the log has the error)' }
  }
  const counted = (queued: number) => ({ queued, why: `none of its ${channels.length} channel(s) is enabled and takes ${severity} notices` })
  let answer: { queued: number; why: string } | Promise<{ queued: number; why: string }> = { queued: 0, why: none }
  if (channels.length) {
    try {
      const q = rt.deps.notify(first.alert.client_id, channels, n)
      answer = typeof q === 'number' ? counted(q) : q.then(counted, failed)
    } catch (err) {
      answer = failed(err)
    }
  }
  const grouped = items.length > 1 ? ` (grouped with ${items.length - 1} more)` : ''
  const timeline = ({ queued, why }: { queued: number; why: string }) => {
    for (const i of items) {
      if (queued > 0) event(rt, i.alert, 'notified', now, { note: `${i.kind} notice${grouped} queued for ${queued} channel(s)` })
      // with no channel chosen at all, the first notice says so; its repeats and recovery would only echo it
      else if (channels.length || i.kind === 'firing') event(rt, i.alert, 'not_notified', now, { note: `no ${i.kind} notice was sent: ${why}` })
    }
  }
  store.transaction(() => {
    for (const i of items) {
      if (i.kind === 'firing' || i.kind === 'repeat') i.alert.last_notified_at = now
      if (i.kind === 'resolved') i.alert.recovery_due_at = null
      store.updateAlert(i.alert)
    }
    if (!(answer instanceof Promise)) timeline(answer)
  })
  // a queue on another engine answers later: the timeline says what it queued once it has
  if (answer instanceof Promise)
    void answer
      .then((a) => store.transaction(() => timeline(a)))
      .catch((err: Error) => logger.error('alert timeline not written', { client_id: first.alert.client_id, error: err.message }))
  for (const i of items) {
    rt.state.held.delete(i.alert.id)
    if (i.alert.state === 'resolved' && i.alert.recovery_due_at === null) rt.state.open.delete(i.alert.id)
  }
}
