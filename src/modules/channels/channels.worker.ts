import type { Timers } from '../../lib/timers'
import type { SlotCaps, Slots } from '../deliveries/deliveries.slots'
import { type Claims, createDeliveryWorker } from '../deliveries/deliveries.worker'
import { completeDelivery, sendDelivery } from './channels.attempt'
import type { ChannelsDeps } from './channels.service'
import type { DeliveryRow } from './channels.store'
import type { SendResult } from './channels.transport'

/** A claimed delivery: its row as claimed (next_attempt_at is what the result is written with), whose and where. */
export type ChannelJob = DeliveryRow & { account: string; destination: string }

export const channelJob = (row: DeliveryRow): ChannelJob => ({ ...row, account: row.client_id, destination: row.channel_id })

interface Sent {
  result: SendResult
  at: number
  durationMs: number
}

export interface ChannelsWorkerOptions {
  timers: Timers
  caps: SlotCaps
  /** the engine's claim (deliveries.claim.ts sqliteClaims, deliveries.due.pg.ts pgClaims) */
  claims: (slots: Slots, caps: SlotCaps) => Claims<ChannelJob>
  /** at start, the rows a stopped process was sending go back to the queue: one hub on SQLite only (on PostgreSQL the leases do it) */
  unclaimAtStart: boolean
  random?: () => number
}

/**
 * The channels' durable queue on the delivery core (deliveries/deliveries.worker): channels
 * bring the rendering of each kind and what an answer means for the delivery. It runs when
 * woken (on enqueue, at start, by a timer at the earliest retry), within the caps in `caps`.
 */
export function createChannelsWorker(deps: ChannelsDeps, opts: ChannelsWorkerOptions) {
  return createDeliveryWorker<ChannelJob, Sent>({
    name: 'channel delivery',
    queue: {
      claims: opts.claims,
      async complete(job, sent) {
        await completeDelivery(deps, job, sent.result, sent, { retries: true, random: opts.random })
        return undefined
      },
      nextDueAt: () => deps.store.nextDueAt(),
      async releaseClaims() {
        if (!opts.unclaimAtStart) return
        const resumed = await deps.store.unclaimAll(deps.clock.now())
        if (resumed) deps.logger.info('channel deliveries interrupted by a stop are queued again', { count: resumed })
      },
    },
    async send(job, stop) {
      const at = deps.clock.now()
      const started = performance.now()
      const result = await sendDelivery(deps, job, stop)
      return { result, at, durationMs: Math.round(performance.now() - started) }
    },
    caps: opts.caps,
    clock: deps.clock,
    timers: opts.timers,
    logger: deps.logger,
  })
}

export type ChannelsWorker = ReturnType<typeof createChannelsWorker>
