import { AppError, notFound } from '../../http/errors'
import type { UserPrincipal } from '../../http/principal'
import { toIso, type Clock } from '../../lib/clock'
import type { EventBus } from '../../lib/event-bus'
import type { BusEvent } from '../../lib/event-bus.event'
import type { Timers } from '../../lib/timers'
import { deviceOf, eventFrame, OPENING, PING, resetFrame, resumePoint, type ResetReason } from './live.format'
import type { SlotLimits, SlotRefusal, StreamSlots } from './live.slots'

/** a comment every this often: proxies and Bun's idle timer see traffic, and a vanished reader is noticed */
export const PING_MS = 15_000
/**
 * A reader that falls this far behind (its socket full, the bytes queued here) is dropped
 * rather than buffered for: it reconnects with Last-Event-ID and replays what it missed.
 */
export const MAX_QUEUED_BYTES = 1024 * 1024

export interface LiveDeps {
  events: EventBus
  clock: Clock
  timers: Timers
  slots: StreamSlots
  devices: { exists(clientId: string, deviceId: string): boolean }
  /** whether the stream's credential still holds: the token not revoked, the user still a member */
  stillValid(token: string, principal: UserPrincipal): Promise<boolean>
}

export interface StreamRequest {
  principal: UserPrincipal
  /** the access token the stream was opened with, checked again at every ping */
  token: string
  /** only this device's events */
  deviceId: string | null
  /** the Last-Event-ID header: resume after it */
  lastEventId: string | null
}

const REFUSALS: Record<SlotRefusal, (limits: SlotLimits) => string> = {
  user: (l) => `You have ${l.perUser} live streams open (other tabs or windows); close one first`,
  account: (l) => `Your account has ${l.perAccount} live streams open (its share of this instance); close one first`,
  total: () => 'This instance is serving all the live streams it can; retry later',
}

const tooMany = (why: SlotRefusal, limits: SlotLimits) => new AppError('too_many_streams', REFUSALS[why](limits), undefined, { 'retry-after': '15' })

/**
 * A client's live events as a byte stream of text/event-stream frames, until the reader goes
 * away, its access token expires or is revoked, or it falls too far behind. Replays what a
 * resuming reader missed (or tells it to reload with a `reset` event), then sends each new
 * event as it is published, and a ping comment every PING_MS. Throws 404 for a device that is
 * not the client's, 429 when no slot is free.
 */
export function openStream(deps: LiveDeps, req: StreamRequest): ReadableStream<Uint8Array> {
  const { principal } = req
  const clientId = principal.clientId
  if (req.deviceId !== null && !deps.devices.exists(clientId, req.deviceId)) throw notFound('Device')
  const slot = deps.slots.take(clientId, principal.userId)
  if ('refused' in slot) throw tooMany(slot.refused, deps.slots.limits)

  // tokens without exp do not verify; the fallback only keeps the type honest
  const expiresAt = principal.expiresAt ?? deps.clock.now()
  const wanted = (e: BusEvent) => req.deviceId === null || deviceOf(e) === req.deviceId
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let closed = false
  let unsubscribe = () => {}
  let cancelTimer = () => {}

  const close = () => {
    if (closed) return
    closed = true
    unsubscribe()
    cancelTimer()
    slot.release()
    try {
      controller.close()
    } catch {
      // already closed or errored by the reader's side
    }
  }
  const send = (frame: Uint8Array) => {
    if (closed) return
    if ((controller.desiredSize ?? 0) < -MAX_QUEUED_BYTES) return close()
    controller.enqueue(frame)
  }
  const tick = () => {
    if (closed) return
    if (deps.clock.now() >= expiresAt) return close()
    send(PING)
    deps.stillValid(req.token, principal).then(
      (ok) => {
        if (!ok) close()
      },
      () => close(),
    )
    schedule()
  }
  // one timer: the next ping, or the token's expiry when that comes first
  const schedule = () => {
    cancelTimer = deps.timers.after(Math.max(0, Math.min(PING_MS, expiresAt - deps.clock.now())), tick)
  }

  return new ReadableStream<Uint8Array>(
    {
      // synchronous: the replay and the subscription see the bus at one point, no event between
      start(c) {
        controller = c
        send(OPENING)
        // the client's stream is kept (not let go as idle) while this reader listens: its epoch holds
        let { epoch } = deps.events.position(clientId)
        unsubscribe = deps.events.subscribe(
          clientId,
          (e) => {
            if (wanted(e)) send(eventFrame(epoch, e))
          },
          // this hub missed other hubs' events: the reader reloads, and goes on from the new point
          (point) => {
            epoch = point.epoch
            send(resetFrame(point.epoch, point.seq, toIso(deps.clock.now()), 'missed'))
          },
        )
        if (req.lastEventId !== null) replay(req.lastEventId, epoch)
        schedule()
      },
      cancel: close,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  )

  function replay(lastEventId: string, epoch: string) {
    const at = deps.events.position(clientId)
    const point = resumePoint(lastEventId, epoch)
    let reason: ResetReason | null = 'reset' in point ? point.reset : null
    let missed: BusEvent[] | null = null
    if ('seq' in point) {
      missed = deps.events.since(clientId, epoch, point.seq)
      // a point beyond the newest event was never handed out by this stream
      if (missed === null) reason = point.seq <= at.seq ? 'too_old' : 'malformed'
    }
    if (reason !== null) return send(resetFrame(epoch, at.seq, toIso(deps.clock.now()), reason))
    for (const e of missed ?? []) if (wanted(e)) send(eventFrame(epoch, e))
  }
}
