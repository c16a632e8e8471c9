/**
 * A local stand-in for a notification service (ntfy, Discord, Slack…) on 127.0.0.1: it
 * records every request exactly as it arrived (method, path and query, headers, raw body) and
 * answers from a script, by default 200 with `{"ok":true}`.
 */
export interface Received {
  method: string
  path: string
  headers: Record<string, string>
  body: string
}

type Answer = { status: number; body?: string; headers?: Record<string, string> }
type Answering = Answer | ((r: Received) => Answer)

export function fakeNotifyService() {
  const received: Received[] = []
  const script: Answer[] = []
  let fallback: Answering = { status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const r = { method: req.method, path: url.pathname + url.search, headers: Object.fromEntries(req.headers), body: await req.text() }
      received.push(r)
      const next = script.shift() ?? fallback
      const a = typeof next === 'function' ? next(r) : next
      return new Response(a.body ?? null, { status: a.status, headers: a.headers })
    },
  })
  return {
    received,
    port: server.port!,
    /** answers for the next requests, in order; then the fallback */
    answer: (...answers: Answer[]) => script.push(...answers),
    /** the answer from now on, or a function of the request */
    answerAlways: (a: Answering) => {
      fallback = a
    },
    stop: () => server.stop(true),
  }
}

export type FakeNotifyService = ReturnType<typeof fakeNotifyService>
