import { Webhook } from 'standardwebhooks'

export interface Received {
  id: string
  timestamp: string
  signature: string
  body: string
  headers: Record<string, string>
}

/**
 * A webhook receiver on 127.0.0.1, as a user would write one: it answers what `answer` says
 * (200 by default), keeps every request, and deduplicates on webhook-id the way Standard
 * Webhooks asks receivers to (`processed` holds each id once; `duplicates` counts repeats that
 * reached it after a success).
 */
export function webhookReceiver(answer: (r: Received, n: number) => Response | Promise<Response> = () => new Response('ok')) {
  const requests: Received[] = []
  const processed = new Map<string, Received>()
  let duplicates = 0
  let waiters: { until: () => boolean; resolve: () => void }[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const body = await req.text()
      const r: Received = {
        id: req.headers.get('webhook-id') ?? '',
        timestamp: req.headers.get('webhook-timestamp') ?? '',
        signature: req.headers.get('webhook-signature') ?? '',
        body,
        headers: Object.fromEntries(req.headers),
      }
      requests.push(r)
      const res = await answer(r, requests.length)
      if (res.status >= 200 && res.status < 300) {
        if (processed.has(r.id)) duplicates++
        else processed.set(r.id, r)
      }
      waiters = waiters.filter((w) => {
        if (!w.until()) return true
        w.resolve()
        return false
      })
      return res
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    requests,
    processed,
    duplicates: () => duplicates,
    /** resolves once `until` holds after a request (bounded by the test's own timeout) */
    waitFor(until: () => boolean): Promise<void> {
      if (until()) return Promise.resolve()
      return new Promise((resolve) => waiters.push({ until, resolve }))
    },
    stop: () => server.stop(true),
  }
}

/** The payload if the request verifies with this secret (the reference implementation), else throws. */
export const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature }) as {
    type: string
    timestamp: string
    data: Record<string, unknown>
    version: number
  }
