import { Elysia, StatusMap, ValidationError } from 'elysia'
import type { ValueError } from '@sinclair/typebox/errors'
import { BodyParseError, parseRequestBody } from './body'
import { AppError } from './errors'
import { RequestValidationError } from './input'
import type { RequestPipeline } from './pipeline'
import { requestState } from './request-state'
import { trace as hubTrace, type RequestTrace } from '../lib/request-trace'
import { dedupe, locationOf, toDetail } from './validation'

/**
 * The request pipeline (pipeline.ts) as Elysia hooks, global to the app: admission in
 * onRequest, a size-capped JSON parser in onParse, and one error handler that turns every
 * failure into the spec's bodies. This file is the one place that knows Elysia's failures.
 */
export function gateway(pipeline: RequestPipeline, maxBodyBytes: number, trace: RequestTrace = hubTrace) {
  const g = new Elysia({ name: 'gateway' })
    .onRequest(async ({ request, server, set }) => {
      if (trace.on) trace.mark(request, 0)
      const admitted = await pipeline.admit(request, server, set.headers as Record<string, string>)
      if (trace.on) trace.mark(request, 1)
      if (admitted instanceof Response) {
        set.status = admitted.status
        return admitted
      }
    })
    .onParse(({ request, contentType }) =>
      parseRequestBody(request, contentType, maxBodyBytes, (text) => {
        const state = requestState(request)
        if (state) state.rawBody = text
      }),
    )
    // after the answer is sent, off the request's path; `route` is the pattern, never the raw path
    .onAfterResponse(({ request, route, set, responseValue }) => {
      if (trace.on) trace.mark(request, 4)
      pipeline.finish(request, route, responseValue instanceof Response ? responseValue.status : statusCode(set.status))
    })
    .onError(({ code, error, request, set }) => {
      const reply = pipeline.errorReply(pipelineError(String(code), error, request), request)
      set.status = reply.status
      if (reply.headers) Object.assign(set.headers, reply.headers)
      return reply.body
    })
  // only when tracing: every hook is compiled into every route's handler
  if (trace.on) g.onBeforeHandle(({ request }) => trace.mark(request, 2)).onAfterHandle(({ request }) => trace.mark(request, 3))
  return g.as('global')
}

/** Elysia lets a handler set a status by name ('Created'); the metrics want the number. */
const statusCode = (status: number | string | undefined): number => (typeof status === 'number' ? status : (StatusMap[status as keyof typeof StatusMap] ?? 200))

/**
 * An Elysia failure as one of the pipeline's own: an unparsable body (Elysia wraps what the
 * parser threw), no route, a path parameter outside its schema. A response that does not match
 * its own schema stays an internal error.
 */
function pipelineError(code: string, error: unknown, request: Request): unknown {
  if (code === 'PARSE') return error instanceof Error && error.cause ? error.cause : new BodyParseError('The request body could not be parsed', 'json_invalid')
  if (code === 'NOT_FOUND') return new AppError('not_found', `No route for ${request.method} ${new URL(request.url).pathname}`)
  if (error instanceof ValidationError && error.type !== 'response') {
    const all = error.all as unknown as ValueError[]
    const where = locationOf(error.type)
    return new RequestValidationError(all.length ? dedupe(all.map((e) => toDetail(where, e))) : [{ loc: [where], msg: 'Invalid value', type: 'value_error' }])
  }
  return error
}
