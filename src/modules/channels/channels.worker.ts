import type { Timers } from '../../lib/timers'
import type { SlotCaps } from '../deliveries/deliveries.slots'
import { createDeliveryWorker } from '../deliveries/deliveries.worker'
import { completeDelivery, sendDelivery } from './channels.attempt'
import type { ChannelsDeps } from './channels.service'
import type { DeliveryRow } from './channels.store'
import type { SendResult } from './channels.transport'

type Job = DeliveryRow & { account: string; destination: string }

interface Sent {
  result: SendResult
  at: number
  durationMs: number
}

/**
 * The channels' durable queue on the delivery core (deliveries/deliveries.worker): channels
 * bring the rendering of each kind and what an answer means for the delivery. It runs when
 * woken (on enqueue, at start, by a timer at the earliest retry), within the caps in `caps`.
 */
export function createChannelsWorker(deps: ChannelsDeps, opts: { timers: Timers; caps: SlotCaps; transaction: <T>(fn: () => T) => T; random?: () => number }) {
  return createDeliveryWorker<Job, Sent>({
    name: 'channel delivery',
    queue: {
      dueAccounts: deps.store.dueAccounts,
      dueOf: deps.store.dueOf,
      take(id) {
        const row = deps.store.claim(id)
        return row ? { ...row, account: row.client_id, destination: row.channel_id } : null
      },
      complete(job, sent) {
        completeDelivery(deps, job, sent.result, sent, { retries: true, random: opts.random })
        return undefined
      },
      nextDueAt: deps.store.nextDueAt,
      releaseClaims() {
        const resumed = deps.store.unclaimAll(deps.clock.now())
        if (resumed) deps.logger.info('channel deliveries interrupted by a stop are queued again', { count: resumed })
      },
    },
    async send(job, stop) {
      const at = deps.clock.now()
      const started = performance.now()
      const result = await sendDelivery(deps, job, stop)
      return { result, at, durationMs: Math.round(performance.now() - started) }
    },
    transaction: opts.transaction,
    caps: opts.caps,
    clock: deps.clock,
    timers: opts.timers,
    logger: deps.logger,
  })
}

export type ChannelsWorker = ReturnType<typeof createChannelsWorker>
