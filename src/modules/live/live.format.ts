import type { BusEvent } from '../../lib/event-bus.event'

/**
 * The wire form of the live stream (text/event-stream): each event as `id: <epoch>-<seq>` (the
 * client's own stream: its epoch and its own count), `event: <type>` and one `data:` line of
 * JSON `{type, timestamp, data}`. JSON escapes line breaks, so the data always fits one line.
 */
const encoder = new TextEncoder()

/** one frame per event, made once however many streams send it */
const frames = new WeakMap<BusEvent, Uint8Array>()

export function eventFrame(epoch: string, event: BusEvent): Uint8Array {
  let frame = frames.get(event)
  if (!frame) {
    // the same text as JSON.stringify({type, timestamp, data}), reusing the data's JSON made when published
    const data = `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.timestamp)},"data":${event.json ?? JSON.stringify(event.data) ?? 'null'}}`
    frame = encoder.encode(`id: ${epoch}-${event.seq}\nevent: ${event.type}\ndata: ${data}\n\n`)
    frames.set(event, frame)
  }
  return frame
}

/**
 * Why a stream could not resume where the reader left off, or (`missed`) why an open stream
 * starts anew: the hub missed events other hubs sent while its link to them was down.
 */
export type ResetReason = 'other_boot' | 'too_old' | 'malformed' | 'missed'

/**
 * The first event of a resumed stream that cannot replay what the reader missed: it reloads
 * what it shows. Its id is the stream's present point, so resuming from it loses nothing.
 */
export function resetFrame(epoch: string, seq: number, timestamp: string, reason: ResetReason): Uint8Array {
  const data = JSON.stringify({ type: 'reset', timestamp, data: { reason } })
  return encoder.encode(`id: ${epoch}-${seq}\nevent: reset\ndata: ${data}\n\n`)
}

/** a comment line: readers ignore it, proxies and sockets see traffic */
export const PING = encoder.encode(': ping\n\n')
/** sent first: EventSource readers wait this long before reconnecting */
export const OPENING = encoder.encode('retry: 5000\n\n')

/**
 * A Last-Event-ID as a point to resume from: the seq, or why it cannot be one. `other_boot`: the
 * id is of an earlier run of the client's stream (the hub restarted, or the stream was let go
 * after being idle with no reader).
 */
export function resumePoint(lastEventId: string, epoch: string): { seq: number } | { reset: ResetReason } {
  const m = /^([A-Za-z0-9]{1,32})-(\d{1,15})$/.exec(lastEventId.trim())
  if (!m) return { reset: 'malformed' }
  if (m[1] !== epoch) return { reset: 'other_boot' }
  return { seq: Number(m[2]) }
}

/** The device an event is about, whatever its type (null for client-wide events). */
export function deviceOf(event: BusEvent): string | null {
  const d = event.data as { device_id?: unknown; device?: { device_id?: unknown }; alert?: { device?: { id?: unknown } } } | null
  if (!d || typeof d !== 'object') return null
  const id = d.device_id ?? d.device?.device_id ?? d.alert?.device?.id
  return typeof id === 'string' ? id : null
}
