import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import { readCredential } from '../../http/credentials'
import { queryInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import { EVENT_STREAM_RESPONSE, EventsQuery } from './live.model'
import { openStream, PING_MS, type LiveDeps } from './live.service'

const tags = ['live']
const eventsQuery = queryInput(EventsQuery)
/**
 * Bun closes a connection idle for its idleTimeout (10 s by default), streaming responses
 * included: a stream is given this long, which the pings (every 15 s) keep from running out
 * while the reader reads. A reader that stops reading lets it run out, and the socket closes.
 */
const STREAM_IDLE_SECONDS = Math.ceil((PING_MS * 3) / 1000)

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // nginx would otherwise hold the events back in its buffer
  'x-accel-buffering': 'no',
}

/** The portal's live stream: a client's events as they happen. */
export function liveRoutes(deps: LiveDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1' }).use(authGuards(auth)).get(
    '/events',
    ({ user, request, server }) => {
      const { device_id } = eventsQuery.read(request)
      const stream = openStream(deps, {
        principal: user,
        token: readCredential(request.headers)!.value,
        deviceId: device_id ?? null,
        lastEventId: request.headers.get('last-event-id'),
      })
      server?.timeout(request, STREAM_IDLE_SECONDS)
      return new Response(stream, { headers: SSE_HEADERS })
    },
    {
      user: true,
      detail: {
        ...routeErrors('not_found', 'too_many_streams'),
        ...eventsQuery.doc,
        responses: { 200: EVENT_STREAM_RESPONSE },
        tags,
        summary: "The client's live events (samples, device status, devices registered and deleted, alerts) as Server-Sent Events; resume with Last-Event-ID",
      },
    },
  )
}
