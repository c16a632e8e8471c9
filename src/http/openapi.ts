import { Elysia } from 'elysia'
import { openapi } from '@elysiajs/openapi'
import { VERSION } from '../version'

interface RouteInfo {
  method: string
  path: string
  hooks: { body?: unknown }
}

interface OpenApiDoc {
  paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>
}

/**
 * /openapi.json generated from the route schemas, and /docs, a Swagger UI whose script and
 * styles are served by this binary: an appliance on a LAN may have no internet.
 * `routes` gives the whole app's routes, read when the document is asked for; `directPaths`
 * documents the routes Bun's router serves directly.
 */
export function openapiDocs(routes: () => RouteInfo[], directPaths: Record<string, Record<string, unknown>> = {}) {
  const docs = openapi({
    path: '/docs',
    specPath: '/openapi.json',
    provider: 'swagger-ui',
    swagger: { cdn: '/docs/assets/swagger-ui-bundle.js', theme: '/docs/assets/swagger-ui.css', version: '5' } as never,
    documentation: {
      info: {
        title: 'Vigil API',
        version: VERSION,
        description:
          'Self-hosted infrastructure monitoring. Portal users authenticate with a bearer access token (JWT); ' +
          'collectors with an API key in `x-api-key` (or `authorization: Bearer vk_…`). Errors: see /docs/errors.',
      },
      // routes served outside Elysia's router (http/direct-routes.ts) describe themselves
      paths: directPaths as never,
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        },
      },
    },
  })
  // The hook must precede the plugin's routes to apply to them.
  return new Elysia({ name: 'openapi-docs' })
    .onAfterHandle({ as: 'local' }, ({ route, response }) => {
      if (route === '/openapi.json') fillJsonBodies(response as OpenApiDoc, routes())
    })
    .use(docs)
}

/**
 * The plugin leaves a request body's `content` empty when the route has a parse hook that is a
 * function, as the gateway's size-capped JSON parser is for every route. Every body here is
 * JSON: say so, with the route's own schema.
 */
export function fillJsonBodies(doc: OpenApiDoc, routes: RouteInfo[]) {
  for (const r of routes) {
    if (!r.hooks.body) continue
    const path = r.path.replace(/:(\w+)/g, '{$1}')
    const op = doc.paths?.[path]?.[r.method.toLowerCase()]
    if (op?.requestBody && Object.keys(op.requestBody.content ?? {}).length === 0) {
      op.requestBody.content = { 'application/json': { schema: r.hooks.body } }
    }
  }
}
