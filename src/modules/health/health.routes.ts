import { Elysia } from 'elysia'
import { HealthResponse } from './health.model'
import { healthReport, type HealthDeps } from './health.service'

export function healthRoutes(deps: HealthDeps) {
  return new Elysia().get(
    '/health',
    async ({ set, request }) => {
      const report = await healthReport(deps, request.headers)
      if (!report.database.ok) set.status = 503
      return report
    },
    {
      response: { 200: HealthResponse, 503: HealthResponse },
      detail: { tags: ['health'], summary: 'Liveness and database check, and what the portal adapts to before anyone signs in' },
    },
  )
}
