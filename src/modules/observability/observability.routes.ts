import { Elysia, t } from 'elysia'
import { requireScraper } from '../../http/auth'
import { AUTH_DOC } from '../../http/openapi-errors'
import { EXPOSITION_CONTENT_TYPE } from './observability.exposition'
import { scrape, type ObservabilityDeps } from './observability.service'

const DESCRIPTION =
  "The Prometheus text format (0.0.4). The VIGIL_METRICS_TOKEN bearer token or the operator's access token scrape the " +
  "service itself and every device; an API key with the scope metrics:read scrapes its own client's devices only. " +
  'The metrics token is not rate limited. See docs/prometheus.md.'

export function observabilityRoutes(deps: ObservabilityDeps) {
  return new Elysia({ name: 'observability-routes' }).get(
    '/metrics',
    ({ request, set }) => {
      const scope = requireScraper(request)
      set.headers['content-type'] = EXPOSITION_CONTENT_TYPE
      return scrape(deps, scope)
    },
    {
      response: { 200: t.String({ description: 'Prometheus text exposition' }) },
      detail: { tags: ['observability'], summary: 'Prometheus metrics', description: DESCRIPTION, [AUTH_DOC]: 'scrape' } as Record<string, unknown>,
    },
  )
}
