import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import type { Timers } from '../lib/timers'
import { createDelivery, type DeliveryOptions } from './agent.delivery'
import { openQueue, type QueueLimits } from './agent.queue'
import type { Fetch } from './agent.sender'
import type { Sampler } from './agent.sample'
import { readIdentity, type Identity } from './readers/identity'
import { withCheckResults } from './checks/agent.checks'
import type { CheckResultIn } from '../modules/checks/checks.model'

export interface AgentOptions extends DeliveryOptions {
  queueLimits?: QueueLimits
}

export interface AgentDeps {
  sampler: Sampler
  clock: Clock
  timers: Timers
  fetch: Fetch
  log: Logger
  /** for the sampling cadence and the replay time budget */
  monotonic?: () => number
  random?: () => number
  identity?: Identity
  /** results of service checks run since the last sample (src/agent/checks): they ride in its batch */
  checkResults?: () => CheckResultIn[] | null
}

/**
 * The collector loop: one sample per interval on a fixed cadence (the n-th sample is due n
 * intervals after the start, whatever the hub does), handed to the sending side
 * (agent.delivery.ts), which sends it, queues it, or keeps it while a request is in flight.
 * While the hub refuses the collector's key, no samples are taken until it is time to ask again.
 */
export function startAgent(opts: AgentOptions, deps: AgentDeps) {
  const { clock, log } = deps
  const monotonic = deps.monotonic ?? (() => performance.now())
  const queue = openQueue(opts.stateDir, { clock, log, limits: opts.queueLimits })
  const delivery = createDelivery(opts, {
    queue,
    clock,
    fetch: deps.fetch,
    log,
    identity: deps.identity ?? readIdentity('/'),
    monotonic,
    random: deps.random,
  })
  let stopped = false
  let cancel: (() => void) | null = null
  let sampling: Promise<void> = Promise.resolve()
  /** when the next sample is due, on the monotonic clock */
  let due = monotonic() + opts.intervalMs

  const { count } = queue.size()
  if (count) log.info('agent: samples waiting from an earlier run', { queued: count })

  async function takeSample(): Promise<void> {
    try {
      if (!delivery.wanted()) return
      const sample = await deps.sampler.sample()
      delivery.offer(JSON.stringify(withCheckResults(sample, deps.checkResults?.() ?? null)), Date.parse(sample.recorded_at))
    } catch (err) {
      log.error('agent: sampling failed', { error: (err as Error).message })
    }
  }

  function tick(): void {
    cancel = null
    // the next one is scheduled before this one runs: a slow sample or hub does not shift the cadence
    const now = monotonic()
    due += opts.intervalMs
    if (due <= now) due = now + opts.intervalMs // asleep (a suspended machine): skip the missed ones
    if (!stopped) cancel = deps.timers.after(due - now, tick)
    sampling = takeSample()
  }

  deps.sampler.prime()
  cancel = deps.timers.after(opts.intervalMs, tick)

  return {
    /** resolves when the sample in progress (if any) is taken and nothing is being sent */
    settled: async () => {
      await sampling
      await delivery.idle()
    },
    queued: () => queue.size(),
    deviceId: () => delivery.deviceId(),
    /** stops sampling, lets the request in flight end; the queue is closed and kept on disk */
    async stop(): Promise<void> {
      stopped = true
      cancel?.()
      cancel = null
      const delivered = delivery.stop()
      await sampling
      await delivered
      queue.close()
    },
  }
}

export type Agent = ReturnType<typeof startAgent>
