import { Elysia } from 'elysia'
import { parseRequestBody } from './body'
import type { RequestPipeline } from './pipeline'
import { requestState } from './request-state'

/**
 * The request pipeline (pipeline.ts) as Elysia hooks, global to the app: admission in
 * onRequest, a size-capped JSON parser in onParse, and one error handler that turns every
 * failure into the spec's bodies.
 */
export function gateway(pipeline: RequestPipeline, maxBodyBytes: number) {
  return new Elysia({ name: 'gateway' })
    .onRequest(async ({ request, server, set }) => {
      const admitted = await pipeline.admit(request, server, set.headers as Record<string, string>)
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
    .onError(({ code, error, request, set, route }) => {
      const reply = pipeline.errorReply(error, request, route, String(code))
      set.status = reply.status
      if (reply.headers) Object.assign(set.headers, reply.headers)
      return reply.body
    })
    .as('global')
}
