import type { Static } from 'elysia'
import type { AppContext } from '../../context'
import { AppError } from '../../http/errors'
import { findPlan, freePlan } from '../billing/billing.catalog'
import { getClient, toClientResponse } from '../clients/clients.service'
import { countClients, listClientsWithUsage, updateClientColumns, type ClientRow } from '../clients/clients.store'
import type { AdminClientUpdate } from './admin.model'

const withLimit = (row: ClientRow) => ({
  ...toClientResponse(row),
  rate_limit: row.rate_limit,
  max_devices_override: row.max_devices_override,
  max_users_override: row.max_users_override,
})

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
 * max_devices here). A limit set here is kept as an override that billing does not touch; null
 * clears it and the plan's limit applies again. The cached rate limit is dropped so the change
 * bites on the next request.
 */
export function updateClientByOperator(ctx: AppContext, clientId: string, input: Static<typeof AdminClientUpdate>) {
  const deps = { sqlite: ctx.db.sqlite, clock: ctx.clock }
  const current = getClient(deps, clientId) // 404 first
  const changes: Record<string, string | number | null> = {}
  let plan = findPlan(ctx.plans(), current.plan_type) ?? freePlan(ctx.plans())
  if (input.plan_type !== undefined) {
    const chosen = findPlan(ctx.plans(), input.plan_type)
    if (!chosen) throw new AppError('invalid_parameter', `Unknown plan "${input.plan_type}"; one of ${ctx.plans().map((p) => p.id).join(', ')}`, 'plan_type')
    plan = chosen
    changes.plan_type = plan.id
    changes.max_devices = plan.maxDevices
    changes.max_users = plan.maxUsers
    changes.max_devices_override = null
    changes.max_users_override = null
  }
  if (input.max_devices !== undefined) {
    changes.max_devices_override = input.max_devices
    changes.max_devices = input.max_devices ?? plan.maxDevices
  }
  if (input.max_users !== undefined) {
    changes.max_users_override = input.max_users
    changes.max_users = input.max_users ?? plan.maxUsers
  }
  if (input.rate_limit !== undefined) changes.rate_limit = input.rate_limit
  updateClientColumns(ctx.db.sqlite, clientId, changes, ctx.clock.now())
  ctx.limits.invalidate(clientId)
  ctx.logger.info('client changed by operator', { client_id: clientId, changes })
  return withLimit(getClient(deps, clientId))
}
