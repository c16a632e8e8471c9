import { timingSafeEqual } from 'node:crypto'
import type { Config } from '../config'
import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import { readCredential, resolveCredential } from './credentials'
import { AppError, ERROR_CODES, errorBody } from './errors'
import type { Authenticator } from './principal'
import type { RateLimiter } from './rate-limiter'
import { systemTimers, type Timers } from '../lib/timers'
import { clientIp, peerIsTrustedProxy, requestIdFrom, requestState as requestStateOf, RequestState, setRequestState } from './request-state'
import { BodyParseError, tooLarge } from './body'
import { storageFaultError } from './storage-fault'
import type { StorageHealth } from '../db/storage-health'
import { RequestValidationError } from './input'
import { API_HEADERS } from './security-headers'

export interface PipelineDeps {
  config: Config
  clock: Clock
  logger: Logger
  limiter: RateLimiter
  auth: Authenticator
  /** where storage faults are recorded for /health */
  storage?: StorageHealth
  /** told of every answer and every rate-limit refusal (the /metrics counters) */
  observer?: RequestObserver
  /** holds rate-limit refusals (config.rateLimitDelayMs); tests pass manual ones */
  timers?: Timers
}

/** What the pipeline reports to the service's own metrics. */
export interface RequestObserver {
  /** a monotonic reading in seconds */
  now(): number
  /** one answer; `route` is the router's pattern, or 'unmatched' */
  request(method: string, route: string, status: number, seconds: number): void
  rateLimited(bucket: 'client' | 'anonymous'): void
}

/** The bit of Bun's server the pipeline needs: the socket's address, asked for only when used. */
export interface PeerSource {
  requestIP(request: Request): { address: string } | null
}

/** What an error becomes on the wire: status, the spec's body, extra headers. */
export interface ErrorReply {
  status: number
  body: unknown
  headers?: Record<string, string>
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const EXPOSED = 'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after'

const hasBody = (h: Headers) => h.has('transfer-encoding') || (h.get('content-length') ?? '0') !== '0'

/**
 * What every request goes through, whichever router dispatches it (Elysia's, or Bun's own for
 * the ingest hot path, see direct-routes.ts): admission (request id, CORS, credential, rate
 * limit before the body is read, declared body size) and the one mapping of failures to the
 * spec's bodies. Plain functions over plain objects, so both routers share them exactly.
 */
export function requestPipeline(deps: PipelineDeps) {
  const { config, clock, logger, limiter, auth, observer } = deps
  const timers = deps.timers ?? systemTimers
  const metricsToken = config.metricsToken ? Buffer.from(config.metricsToken) : null
  const cors = new Set(config.corsOrigins)
  const tls = !!config.tlsCert
  let admitted = 0

  /**
   * Admits a request: its state (id, principal or credential failure) is attached to it and
   * the response headers every answer carries are written into `headers`. Returns a finished
   * response for a CORS preflight; throws AppError (rate limit, body too large) with `headers`
   * already filled, so the error answer carries them too.
   */
  async function admit(request: Request, peer: PeerSource | null | undefined, headers: Record<string, string>): Promise<RequestState | Response> {
    admitted++
    const h = request.headers
    const id = requestIdFrom(h.get('x-request-id'))
    // the socket address is costly to ask for: only anonymous buckets, login throttling and logs need it
    const state = new RequestState(id, clock.now(), () => clientIp(h.get('x-forwarded-for'), peer?.requestIP(request)?.address, config))
    state.fromTrustedProxy = () => peerIsTrustedProxy(peer?.requestIP(request)?.address, config)
    setRequestState(request, state)
    if (observer) state.admittedAt = observer.now()
    headers['x-request-id'] = id
    Object.assign(headers, API_HEADERS)
    if (tls) headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains'

    if (cors.size) {
      const origin = h.get('origin')
      if (origin && cors.has(origin)) {
        headers['access-control-allow-origin'] = origin
        headers.vary = 'Origin'
        headers['access-control-expose-headers'] = EXPOSED
        if (request.method === 'OPTIONS') {
          headers['access-control-allow-methods'] = 'GET, POST, PATCH, DELETE, OPTIONS'
          headers['access-control-allow-headers'] = 'authorization, content-type, x-api-key, x-device-id, x-request-id'
          headers['access-control-max-age'] = '600'
          return new Response(null, { status: 204, headers })
        }
      }
    }

    const cred = readCredential(h)
    // a Prometheus server with the metrics token is the operator's own tool, not a tenant: no
    // principal, and no share of anyone's rate limit (a wrong token is an anonymous caller)
    if (cred && metricsToken && isMetricsToken(cred.value) && request.method === 'GET' && new URL(request.url).pathname === '/metrics') {
      state.scraper = true
      return state
    }
    if (cred) {
      const resolved = await resolveCredential(auth, cred)
      if (resolved.kind === 'invalid') state.failure = resolved
      else state.principal = resolved
    }
    const p = state.principal
    const [bucketKey, limitRead] = p
      ? [`c:${p.clientId}`, auth.rateLimitFor(p.clientId)] // the plan's budget belongs to the tenant, not to each credential
      : [`ip:${state.ip}`, config.rateLimits.anonymous]
    const limit = limitRead instanceof Promise ? await limitRead : limitRead
    // a shared store answers with a promise; the memory limiter at once, and awaiting a plain
    // value would still cost the ingest path a turn of the microtask queue per request
    const taken = limiter.take(bucketKey, limit, clock.now())
    const r = taken instanceof Promise ? await taken : taken
    headers['x-ratelimit-limit'] = String(r.limit)
    headers['x-ratelimit-remaining'] = String(r.remaining)
    headers['x-ratelimit-reset'] = String(Math.ceil(r.resetAt / 1000))
    if (!r.allowed) {
      observer?.rateLimited(p ? 'client' : 'anonymous')
      // Held a moment before it is sent (no CPU while it waits): a client looping on 429 without
      // honouring Retry-After, a broken collector or a flood, cannot make the refusals spin.
      const hold = Math.min(config.rateLimitDelayMs, r.retryAfterMs)
      if (hold > 0) await new Promise<void>((resolve) => timers.after(hold, resolve))
      const retry = String(Math.max(1, Math.ceil(r.retryAfterMs / 1000)))
      throw new AppError('rate_limited', `Rate limit of ${r.limit} requests per minute exceeded; retry in ${retry} s`, undefined, { 'retry-after': retry })
    }
    if (BODY_METHODS.has(request.method)) {
      const declared = Number(h.get('content-length') ?? 0)
      if (declared > config.maxBodyBytes) {
        throw tooLarge(config.maxBodyBytes)
      }
    }
    return state
  }

  /**
   * Any failure as the spec's answer: AppError → its `error` body; a request that does not
   * match its schema or cannot be parsed → 422 `detail`; a storage fault → its own code;
   * anything else → 500 with the request id only (the details go to the log). The pipeline
   * knows only its own error types: each router's adapter translates the router's failures
   * (gateway.ts for Elysia) before they come here.
   */
  function errorReply(error: unknown, request: Request): ErrorReply {
    const reply = replyFor(error, request)
    // Refused before its body was read (rate limit, credential, size): the connection closes
    // after the answer instead of reading and discarding the rest of the body to keep it, which
    // under a flood of large bodies was most of the server's work. Not a trusted proxy's: it
    // sends the whole body it buffered, and a connection closed under it turns the answer into
    // the proxy's 502; the proxy bounds the body (its client_max_body_size) and the flood.
    if (!request.bodyUsed && hasBody(request.headers) && !requestStateOf(request)?.fromTrustedProxy()) {
      reply.headers = { ...reply.headers, connection: 'close' }
    }
    return reply
  }

  function replyFor(error: unknown, request: Request): ErrorReply {
    const state = requestStateOf(request)
    if (error instanceof AppError)
      return { status: error.status, body: errorBody(config.siteUrl, error.code, error.message, error.param), headers: error.headers }
    if (error instanceof RequestValidationError) return { status: 422, body: { detail: error.detail } }
    if (error instanceof BodyParseError) return { status: 422, body: { detail: [{ loc: ['body'], msg: error.message, type: error.type }] } }
    const fault = storageFaultError(error, deps.storage, clock.now()) // a damaged file or a full disk: its own code, and /health reports it
    if (fault) logger.error('storage fault', { request_id: state?.id, error: (error as Error).message })
    if (fault) return { status: fault.status, body: errorBody(config.siteUrl, fault.code, fault.message), headers: fault.headers }
    return internal(error)

    function internal(err: unknown): ErrorReply {
      logger.error('request failed', {
        request_id: state?.id,
        method: request.method,
        path: new URL(request.url).pathname,
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      })
      return {
        status: ERROR_CODES.internal_error.status,
        body: errorBody(config.siteUrl, 'internal_error', `Internal error; quote request id ${state?.id ?? 'unknown'} when reporting it`),
      }
    }
  }

  /** compared in constant time, and only when the length matches: access tokens are longer */
  function isMetricsToken(value: string): boolean {
    return value.length === metricsToken!.length && timingSafeEqual(Buffer.from(value), metricsToken!)
  }

  /** An answer, for the request metrics: each router calls it once per request with its route pattern. */
  function finish(request: Request, route: string | undefined, status: number) {
    if (!observer) return
    const state = requestStateOf(request)
    observer.request(request.method, route || 'unmatched', status, state ? observer.now() - state.admittedAt : 0)
  }

  /** requests admitted since start: a cheap activity signal (the memory reducer watches it) */
  const admittedCount = () => admitted

  return { admit, errorReply, finish, admittedCount }
}

export type RequestPipeline = ReturnType<typeof requestPipeline>
