import { signal } from '@preact/signals'
import { freshToken, onToken, refreshSession } from './api'
import { parseBlock } from './sse'

/**
 * One shared stream of the server's events (GET /v1/events) for every page: read with fetch
 * streaming so the token goes in the authorization header, never in a URL. It opens with the
 * first listener and closes with the last; it reconnects (the server ends it when the access
 * token expires) and resumes with Last-Event-ID. When the server cannot replay what was missed,
 * its first event is `reset`: listeners of 'reset' reload what they show.
 */

export interface LiveEvent<T = unknown> {
  id: string | null
  type: string
  timestamp: string | null
  data: T
}

export type LiveListener<T = unknown> = (event: LiveEvent<T>) => void

/** 'connecting' | 'open' | 'closed': for a small "live" indicator */
export const liveState = signal<'connecting' | 'open' | 'closed'>('closed')

const listeners = new Map<string, Set<LiveListener>>()
let count = 0
let controller: AbortController | null = null
let lastEventId: string | null = null
let retryTimer: ReturnType<typeof setTimeout> | null = null
let failures = 0

/** Listens to events of one type ('*': every type). Returns the unsubscribe function. */
export function onLive<T = unknown>(type: string, listener: LiveListener<T>): () => void {
  let set = listeners.get(type)
  if (!set) listeners.set(type, (set = new Set()))
  set.add(listener as LiveListener)
  if (++count === 1) connect()
  return () => {
    if (!set.delete(listener as LiveListener)) return
    if (--count === 0) disconnect()
  }
}

// signed in again (or the token renewed) while waiting to retry: retry now
onToken(() => {
  if (count && !controller && retryTimer) {
    clearTimeout(retryTimer)
    retryTimer = null
    void connect()
  }
})

function dispatch(event: LiveEvent): void {
  for (const key of [event.type, '*']) {
    for (const l of listeners.get(key) ?? []) {
      try {
        l(event)
      } catch (err) {
        console.error('live listener failed', err)
      }
    }
  }
}

function disconnect(): void {
  controller?.abort()
  controller = null
  if (retryTimer) clearTimeout(retryTimer)
  retryTimer = null
  liveState.value = 'closed'
}

function scheduleReconnect(): void {
  if (count === 0 || retryTimer) return
  // 1 s, 2 s, 4 s … up to 30 s, with jitter so many tabs do not come back in step
  const delay = Math.min(30_000, 1000 * 2 ** Math.min(failures, 5)) * (0.75 + Math.random() / 2)
  failures++
  retryTimer = setTimeout(() => {
    retryTimer = null
    connect()
  }, delay)
}

async function connect(): Promise<void> {
  if (controller || count === 0) return
  const ctrl = new AbortController()
  controller = ctrl
  liveState.value = 'connecting'
  try {
    const token = await freshToken()
    if (!token) throw new Error('signed out')
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${token}` }
    if (lastEventId) headers['last-event-id'] = lastEventId
    const res = await fetch('/v1/events', { headers, signal: ctrl.signal, cache: 'no-store' })
    if (res.status === 401) await refreshSession()
    if (!res.ok || !res.body) throw new Error(`events answered ${res.status}`)
    liveState.value = 'open'
    failures = 0
    await readStream(res.body, ctrl.signal)
  } catch {
    // aborted, refused or dropped: reconnect below unless nobody listens any more
  } finally {
    if (controller === ctrl) {
      controller = null
      liveState.value = count ? 'connecting' : 'closed'
      scheduleReconnect()
    }
  }
}

/** Parses text/event-stream: blank-line separated blocks of `field: value` lines; `:` lines are comments (pings). */
async function readStream(body: ReadableStream<Uint8Array>, abort: AbortSignal): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader()
  let buffer = ''
  while (!abort.aborted) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += value
    let end = buffer.search(/\r?\n\r?\n/)
    while (end !== -1) {
      // closed meanwhile: what is left is unseen, and the next stream asks for it again from the last id
      if (abort.aborted) return
      const block = buffer.slice(0, end)
      buffer = buffer.slice(buffer.slice(end).startsWith('\r\n\r\n') ? end + 4 : end + 2)
      handleBlock(block)
      end = buffer.search(/\r?\n\r?\n/)
    }
  }
}

function handleBlock(block: string): void {
  const parsed = parseBlock(block)
  if (!parsed) return
  if (parsed.id) lastEventId = parsed.id
  let payload: { type?: string; timestamp?: string; data?: unknown } = {}
  try {
    payload = parsed.data ? JSON.parse(parsed.data) : {}
  } catch {
    return
  }
  dispatch({ id: parsed.id, type: parsed.event, timestamp: payload.timestamp ?? null, data: payload.data ?? payload })
}
