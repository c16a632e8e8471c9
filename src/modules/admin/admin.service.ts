import type { Static } from 'elysia'
import type { AppContext } from '../../context'
import { AppError } from '../../http/errors'
import { getClient, toClientResponse } from '../clients/clients.service'
import { countClients, listClientsWithUsage, updateClientColumns, type ClientRow } from '../clients/clients.store'
import type { AdminClientUpdate } from './admin.model'

const withLimit = (row: ClientRow) => ({ ...toClientResponse(row), rate_limit: row.rate_limit })

export function listClientsForOperator(ctx: AppContext, limit: number, offset: number) {
  const rows = listClientsWithUsage(ctx.db.sqlite, limit, offset)
  return {
    items: rows.map((r) => ({ ...withLimit(r), usage: { devices: r.devices, members: r.members, api_keys: r.api_keys } })),
    total: countClients(ctx.db.sqlite),
    limit,
    offset,
  }
}

/**
 * The operator's override of a client's plan and limits (a self-hoster without billing raises
 * max_devices here). The cached rate limit is dropped so the change bites on the next request.
 */
export function updateClientByOperator(ctx: AppContext, clientId: string, input: Static<typeof AdminClientUpdate>) {
  const deps = { sqlite: ctx.db.sqlite, clock: ctx.clock }
  getClient(deps, clientId) // 404 first
  const changes: Record<string, string | number | null> = {}
  if (input.plan_type !== undefined) {
    const plan = ctx.plans().find((p) => p.id === input.plan_type)
    if (!plan) throw new AppError('invalid_parameter', `Unknown plan "${input.plan_type}"; one of ${ctx.plans().map((p) => p.id).join(', ')}`, 'plan_type')
    changes.plan_type = plan.id
    changes.max_devices = plan.maxDevices
    changes.max_users = plan.maxUsers
  }
  if (input.max_devices !== undefined) changes.max_devices = input.max_devices
  if (input.max_users !== undefined) changes.max_users = input.max_users
  if (input.rate_limit !== undefined) changes.rate_limit = input.rate_limit
  updateClientColumns(ctx.db.sqlite, clientId, changes, ctx.clock.now())
  ctx.limits.invalidate(clientId)
  ctx.logger.info('client changed by operator', { client_id: clientId, changes })
  return withLimit(getClient(deps, clientId))
}
