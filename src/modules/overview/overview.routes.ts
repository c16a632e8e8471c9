import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { FleetOverview } from './overview.model'
import { fleetOverview, type OverviewDeps } from './overview.service'

const tags = ['devices']

/** The dashboard's one read: every device at a glance. */
export function overviewRoutes(deps: OverviewDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/clients/me' }).use(authGuards(auth)).get(
    '/fleet',
    // serialised here, not checked again against the schema: hundreds of devices × 60 values
    async ({ user }) => new Response(JSON.stringify(await fleetOverview(deps, user.clientId)), { headers: { 'content-type': 'application/json' } }),
    {
      user: true,
      response: { 200: FleetOverview },
      detail: {
        tags,
        summary: 'Every device at a glance: status by its own reporting interval, newest figures, the last hour of CPU per minute, alerts firing',
      },
    },
  )
}
