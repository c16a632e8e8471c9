import { openapi } from '@elysiajs/openapi'
import { VERSION } from '../version'

/**
 * /openapi.json generated from the route schemas, and /docs, a Swagger UI whose script and
 * styles are served by this binary: an appliance on a LAN may have no internet.
 */
export function openapiDocs() {
  return openapi({
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
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        },
      },
    },
  })
}
