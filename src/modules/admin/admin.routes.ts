import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
import { guards, JWT_AUTH } from '../../http/guards'
import { AdminClientList, AdminClientPatched, AdminClientParams, AdminClientUpdate, AdminClientsQuery, StatsResponse } from './admin.model'
import { listClientsForOperator, updateClientByOperator } from './admin.service'
import { collectStats } from './admin.stats'

const tags = ['admin']
const operator = { operator: true }

/** Instance-operator views (users with role admin); everyone else gets 403, anonymous callers 401. */
export function adminRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/v1/admin' })
    .use(guards(ctx))
    .get('/stats', () => collectStats(ctx.db.sqlite, ctx.statProviders, ctx.logger), {
      user: operator,
      response: { 200: StatsResponse },
      detail: { tags, security: JWT_AUTH, summary: 'Instance statistics' },
    })
    .get('/clients', ({ query }) => listClientsForOperator(ctx, query.limit, query.offset), {
      user: operator,
      query: AdminClientsQuery,
      response: { 200: AdminClientList },
      detail: { tags, security: JWT_AUTH, summary: 'Every client with its usage (limit 1..1000, default 100)' },
    })
    .patch('/clients/:client_id', ({ params, body }) => updateClientByOperator(ctx, params.client_id, body), {
      user: operator,
      params: AdminClientParams,
      body: AdminClientUpdate,
      response: { 200: AdminClientPatched },
      detail: { tags, security: JWT_AUTH, summary: "Set a client's plan or limits by hand" },
    })
}
