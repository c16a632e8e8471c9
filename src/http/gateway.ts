import { Elysia } from 'elysia'
import type { Config } from '../config'
import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import { readCredential, resolveCredential } from './credentials'
import { AppError, ERROR_CODES, errorBody } from './errors'
import type { Authenticator } from './principal'
import type { RateLimiter } from './rate-limiter'
import { clientIp, requestIdFrom, requestState, setRequestState } from './request-state'
import { BodyParseError, parseJson, readBodyText } from './body'
import { coercedQueryParam, dedupe, locationOf, toDetail } from './validation'
import type { ValueError } from '@sinclair/typebox/errors'

export interface GatewayDeps {
  config: Config
  clock: Clock
  logger: Logger
  limiter: RateLimiter
  auth: Authenticator
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * What every request goes through, in order: request id and client address, CORS,
 * credential resolution, rate limit (before the body is even read), body parsing with a size
 * cap, and one error handler that turns every failure into the spec's bodies.
 */
export function gateway(deps: GatewayDeps) {
  const { config, clock, logger, limiter, auth } = deps
  const cors = new Set(config.corsOrigins)
  const tls = !!config.tlsCert

  return new Elysia({ name: 'gateway' })
    .onRequest(async ({ request, server, set }) => {
      const id = requestIdFrom(request.headers.get('x-request-id'))
      const ip = clientIp(request.headers.get('x-forwarded-for'), server?.requestIP(request)?.address, config.trustProxy)
      const state = { id, ip, startedAt: clock.now(), principal: null, failure: null } as Parameters<typeof setRequestState>[1]
      setRequestState(request, state)
      set.headers['x-request-id'] = id
      if (tls) set.headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains'

      const origin = request.headers.get('origin')
      if (origin && cors.has(origin)) {
        set.headers['access-control-allow-origin'] = origin
        set.headers['vary'] = 'Origin'
        set.headers['access-control-expose-headers'] = 'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after'
        if (request.method === 'OPTIONS') {
          set.headers['access-control-allow-methods'] = 'GET, POST, PATCH, DELETE, OPTIONS'
          set.headers['access-control-allow-headers'] = 'authorization, content-type, x-api-key, x-device-id, x-request-id'
          set.headers['access-control-max-age'] = '600'
          set.status = 204
          return new Response(null, { status: 204, headers: set.headers as Record<string, string> })
        }
      }

      const cred = readCredential(request.headers)
      if (cred) {
        const resolved = await resolveCredential(auth, cred)
        if (resolved.kind === 'invalid') state.failure = resolved
        else state.principal = resolved
      }
      const p = state.principal
      const [bucketKey, limit] = p
        ? [p.kind === 'key' ? `k:${p.keyId}` : `u:${p.userId}`, auth.rateLimitFor(p.clientId)]
        : [`ip:${ip}`, config.rateLimits.anonymous]
      const now = clock.now()
      const r = limiter.take(bucketKey, limit, now)
      set.headers['x-ratelimit-limit'] = String(r.limit)
      set.headers['x-ratelimit-remaining'] = String(r.remaining)
      set.headers['x-ratelimit-reset'] = String(Math.ceil(r.resetAt / 1000))
      if (!r.allowed) {
        const retry = String(Math.max(1, Math.ceil(r.retryAfterMs / 1000)))
        throw new AppError('rate_limited', `Rate limit of ${r.limit} requests per minute exceeded; retry in ${retry} s`, undefined, { 'retry-after': retry })
      }
      if (BODY_METHODS.has(request.method)) {
        const declared = Number(request.headers.get('content-length') ?? 0)
        if (declared > config.maxBodyBytes) {
          throw new AppError('payload_too_large', `The request body is larger than ${config.maxBodyBytes} bytes`)
        }
      }
    })
    .onParse(async ({ request, contentType }) => {
      const text = await readBodyText(request, config.maxBodyBytes)
      const state = requestState(request)
      if (state) state.rawBody = text
      if (!contentType || contentType.startsWith('application/json') || contentType.endsWith('+json')) {
        // A bodyless request gives the route's schema `undefined`, which it may accept.
        return text === '' && !contentType ? undefined : parseJson(text)
      }
      throw new BodyParseError(`Unsupported content type "${contentType}"; send application/json`, 'content_type')
    })
    .onError(({ code, error: thrown, request, set }) => {
      const state = requestState(request)
      // Elysia wraps whatever a parser throws in a ParseError; the original says what went wrong.
      const error = code === 'PARSE' && thrown.cause ? thrown.cause : thrown
      if (error instanceof AppError) {
        set.status = error.status
        if (error.headers) Object.assign(set.headers, error.headers)
        return errorBody(config.siteUrl, error.code, error.message, error.param)
      }
      if (error instanceof BodyParseError) {
        set.status = 422
        return { detail: [{ loc: ['body'], msg: error.message, type: error.type }] }
      }
      if (code === 'VALIDATION' && error === thrown) {
        if (thrown.type === 'response') return internal(thrown)
        set.status = 422
        const where = locationOf(thrown.type)
        const all = thrown.all as unknown as ValueError[]
        // Elysia's numeric coercion of a query value reports type "property" without its name
        const prop = thrown.type === 'property' ? coercedQueryParam(request.url, thrown.value) : null
        const detail = all.length
          ? dedupe(all.map((e) => (prop ? { ...toDetail('query', e), loc: prop } : toDetail(where, e))))
          : [{ loc: [where], msg: 'Invalid value', type: 'value_error' }]
        return { detail }
      }
      if (code === 'PARSE') {
        set.status = 422
        return { detail: [{ loc: ['body'], msg: 'The request body could not be parsed', type: 'json_invalid' }] }
      }
      if (code === 'NOT_FOUND') {
        set.status = 404
        return errorBody(config.siteUrl, 'not_found', `No route for ${request.method} ${new URL(request.url).pathname}`)
      }
      return internal(error)

      function internal(err: unknown) {
        logger.error('request failed', {
          request_id: state?.id,
          method: request.method,
          path: new URL(request.url).pathname,
          error: err instanceof Error ? err.message : String(err),
          stack: err instanceof Error ? err.stack : undefined,
        })
        set.status = ERROR_CODES.internal_error.status
        return errorBody(config.siteUrl, 'internal_error', `Internal error; quote request id ${state?.id ?? 'unknown'} when reporting it`)
      }
    })
    .as('global')
}
