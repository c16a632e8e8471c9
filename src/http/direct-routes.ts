import type { TSchema } from '@sinclair/typebox'
import { requireKeyScope, type Scope } from './auth'
import { parseRequestBody } from './body'
import { AUTH_DOC, routeErrors } from './openapi-errors'
import type { ErrorCode } from './errors'
import type { PeerSource, RequestPipeline } from './pipeline'
import type { KeyPrincipal } from './principal'

/**
 * A collector endpoint served by Bun's own router instead of Elysia's: the ingest hot path.
 * It goes through the same pipeline as every other route (admission, key and scope check,
 * size-capped JSON body, the one error mapping), minus the framework's per-request hooks,
 * context and response mapping, a sizeable share of an ingest request. `handle` checks its
 * body itself (a bodyReader of http/input.ts) and returns the answer's JSON body.
 */
export interface DirectKeyRoute {
  method: 'POST'
  path: string
  scope: Scope
  status: number
  handle(input: { key: KeyPrincipal; body: unknown; request: Request }): Promise<unknown> | unknown
  doc: { tags: string[]; summary: string; body: TSchema; response: TSchema; errors?: ErrorCode[] }
}

type BunHandler = (request: Request, server: PeerSource) => Promise<Response>

export interface DirectRoutes {
  routes: DirectKeyRoute[]
  /** for Bun.serve `routes`: path → method → handler */
  serveRoutes: Record<string, Record<string, BunHandler>>
  /** the same dispatch for app.handle-style callers (tests, in-process benches): undefined when no route matches */
  match(request: Request): BunHandler | undefined
  /** OpenAPI path items for the routes, merged into /openapi.json */
  openapiPaths: Record<string, Record<string, unknown>>
}

export function directRoutes(pipeline: RequestPipeline, maxBodyBytes: number, routes: DirectKeyRoute[]): DirectRoutes {
  const serveRoutes: DirectRoutes['serveRoutes'] = {}
  const openapiPaths: DirectRoutes['openapiPaths'] = {}
  for (const route of routes) {
    ;(serveRoutes[route.path] ??= {})[route.method] = handlerFor(pipeline, maxBodyBytes, route)
    ;(openapiPaths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route)
  }
  return {
    routes,
    serveRoutes,
    openapiPaths,
    match(request) {
      const byMethod = serveRoutes[new URL(request.url).pathname]
      return byMethod?.[request.method]
    },
  }
}

function handlerFor(pipeline: RequestPipeline, maxBodyBytes: number, route: DirectKeyRoute): BunHandler {
  const json = (status: number, body: unknown, headers: Record<string, string>) => {
    headers['content-type'] = 'application/json'
    return new Response(JSON.stringify(body), { status, headers })
  }
  const answer = async (request: Request, server: PeerSource, headers: Record<string, string>) => {
    try {
      const admitted = await pipeline.admit(request, server, headers)
      if (admitted instanceof Response) return admitted
      // the credential is checked before the body is read: an anonymous caller learns nothing of the schema
      const key = requireKeyScope(request, route.scope)
      const body = await parseRequestBody(request, request.headers.get('content-type'), maxBodyBytes)
      return json(route.status, await route.handle({ key, body, request }), headers)
    } catch (err) {
      const reply = pipeline.errorReply(err, request)
      if (reply.headers) Object.assign(headers, reply.headers)
      return json(reply.status, reply.body, headers)
    }
  }
  return async (request, server) => {
    const response = await answer(request, server, {})
    pipeline.finish(request, route.path, response.status)
    return response
  }
}

/** The route's OpenAPI operation; openapi-errors.ts completes it like every other. */
function operationOf(route: DirectKeyRoute) {
  return {
    tags: route.doc.tags,
    summary: route.doc.summary,
    [AUTH_DOC]: 'key',
    ...(route.doc.errors ? routeErrors(...route.doc.errors) : {}),
    requestBody: { required: true, content: { 'application/json': { schema: route.doc.body } } },
    responses: {
      [route.status]: { description: route.doc.summary, content: { 'application/json': { schema: route.doc.response } } },
    },
  }
}
