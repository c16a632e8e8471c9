import { Elysia } from 'elysia'
import { openapi } from '@elysiajs/openapi'
import { VERSION } from '../version'
import { BODY_DOC, QUERY_DOC } from './input'
import { completeDocument, ERROR_SCHEMAS } from './openapi-errors'
import { docsPage } from './docs-page'

/**
 * /openapi.json generated from the route schemas, and /docs, a Swagger UI whose script and
 * styles are served by this binary (docs-page.ts): an appliance on a LAN may have no internet.
 * `directPaths` documents the routes Bun's router serves directly. Every operation is completed
 * from what its route declares (openapi-errors.ts): query, body, credential, error answers.
 */
export function openapiDocs(directPaths: Record<string, Record<string, unknown>> = {}) {
  const docs = openapi({
    path: '/docs',
    specPath: '/openapi.json',
    // the page is ours (docs-page.ts): the plugin's has an inline script a strict CSP refuses
    provider: null,
    documentation: {
      info: {
        title: 'Vigil API',
        version: VERSION,
        description:
          'Self-hosted infrastructure monitoring. Portal users authenticate with a bearer access token (JWT); ' +
          'collectors with an API key in `x-api-key` (or `authorization: Bearer vk_…`). Errors: see /docs/errors.',
      },
      // routes served outside Elysia's router (http/direct-routes.ts) describe themselves
      paths: directPaths,
      components: {
        schemas: ERROR_SCHEMAS,
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        },
      },
    },
  })
  const completed = new WeakSet<object>()
  // The hook must precede the plugin's routes to apply to them.
  return new Elysia({ name: 'openapi-docs' })
    .onAfterHandle({ as: 'local' }, ({ route, response }) => {
      if (route !== '/openapi.json' || typeof response !== 'object' || response === null || completed.has(response)) return
      completeDocument(response as Parameters<typeof completeDocument>[0], { query: QUERY_DOC, body: BODY_DOC })
      completed.add(response)
    })
    .use(docs)
    .use(docsPage())
}
