import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { routeErrors } from '../../http/openapi-errors'
import { jsonInput, queryInput } from '../../http/input'
import {
  AdminClientList,
  AdminClientPatched,
  AdminClientParams,
  AdminClientUpdate,
  AdminClientsQuery,
  InstanceSettingsResponse,
  StatsResponse,
} from './admin.model'
import { listClientsForOperator, updateClientByOperator, type AdminDeps } from './admin.service'
import { collectStats } from './admin.stats'

const tags = ['admin']
const operator = { operator: true }
const clientsQuery = queryInput(AdminClientsQuery)
const clientUpdate = jsonInput(AdminClientUpdate)

/** Instance-operator views (users with role admin); everyone else gets 403, anonymous callers 401. */
export function adminRoutes(deps: AdminDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/admin' })
    .use(authGuards(auth))
    .get('/stats', () => collectStats(deps), {
      user: operator,
      response: { 200: StatsResponse },
      detail: { tags, summary: 'Instance statistics' },
    })
    .get('/instance', () => deps.instance, {
      user: operator,
      response: { 200: InstanceSettingsResponse },
      detail: { tags, summary: 'How the instance is set up: mode, sign-up policy, billing (read-only: set in the environment, applied at restart)' },
    })
    .get(
      '/clients',
      ({ request }) => {
        const query = clientsQuery.read(request)
        return listClientsForOperator(deps, query.limit, query.offset)
      },
      {
        user: operator,
        response: { 200: AdminClientList },
        detail: { ...clientsQuery.doc, tags, summary: 'Every client with its usage (limit 1..1000, default 100)' },
      },
    )
    .patch('/clients/:client_id', ({ params, body }) => updateClientByOperator(deps, params.client_id, clientUpdate.read(body)), {
      user: operator,
      params: AdminClientParams,
      response: { 200: AdminClientPatched },
      detail: { ...routeErrors('invalid_parameter'), ...clientUpdate.doc, tags, summary: "Set a client's plan or limits by hand" },
    })
}
