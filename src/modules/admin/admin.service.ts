import type { Static } from 'elysia'
import { AppError } from '../../http/errors'
import type { Logger } from '../../lib/logger'
import type { Plan } from '../billing/billing.catalog'
import type { AdminClientPatched, AdminClientUpdate, InstanceSettingsResponse } from './admin.model'
import type { StatProvider } from './admin.stats'

type OperatorView = Static<typeof AdminClientPatched>

/** The plan and limit columns the operator writes (an override of null: the plan's value applies). */
export type PlanAndLimits = Partial<{
  plan_type: string
  max_devices: number
  max_users: number
  max_devices_override: number | null
  max_users_override: number | null
  rate_limit: number | null
}>

/** What the operator's views need of the clients domain. */
export interface OperatorClients {
  /** 404 when unknown */
  get(clientId: string): Promise<OperatorView>
  /** one page, oldest first, and how many clients there are */
  page(limit: number, offset: number): Promise<{ rows: OperatorView[]; total: number }>
  /** members not disabled, pending invitations included */
  seatsUsed(clientId: string): number
  /** the oldest active owner's email */
  ownerEmail(clientId: string): string | null
  /** writes plan and limit columns; the change bites on the next request */
  setPlanAndLimits(clientId: string, changes: PlanAndLimits): Promise<OperatorView>
}

/** What a client uses of the fleet: its devices and active API keys. */
export interface FleetUsage {
  devices(clientId: string): number | Promise<number>
  apiKeys(clientId: string): number | Promise<number>
}

/** The billing catalog, as the operator's plan changes read it. */
export interface PlanCatalog {
  all(): Plan[]
  find(planId: string): Plan | undefined
  /** the plan a client gets when its own is no longer in the catalog */
  fallback(): Plan
}

export interface AdminDeps {
  clients: OperatorClients
  usage: FleetUsage
  plans: PlanCatalog
  /** every domain's counts for GET /v1/admin/stats, in the order they appear there */
  stats: StatProvider[]
  /** the instance's settings as read from the environment at start */
  instance: InstanceSettingsResponse
  logger: Logger
}

export async function listClientsForOperator(deps: Pick<AdminDeps, 'clients' | 'usage'>, limit: number, offset: number) {
  const { rows, total } = await deps.clients.page(limit, offset)
  return {
    items: await Promise.all(
      rows.map(async (c) => ({
        ...c,
        usage: {
          devices: await deps.usage.devices(c.client_id),
          members: deps.clients.seatsUsed(c.client_id),
          api_keys: await deps.usage.apiKeys(c.client_id),
        },
        owner_email: deps.clients.ownerEmail(c.client_id),
      })),
    ),
    total,
    limit,
    offset,
  }
}

/**
 * The operator's override of a client's plan and limits (a self-hoster without billing raises
 * max_devices here). A limit set here is kept as an override that billing does not touch; null
 * clears it and the plan's limit applies again.
 */
export async function updateClientByOperator(deps: Pick<AdminDeps, 'clients' | 'plans' | 'logger'>, clientId: string, input: Static<typeof AdminClientUpdate>) {
  const current = await deps.clients.get(clientId) // 404 first
  const changes: PlanAndLimits = {}
  let plan = deps.plans.find(current.plan_type ?? '') ?? deps.plans.fallback()
  if (input.plan_type !== undefined) {
    const chosen = deps.plans.find(input.plan_type)
    if (!chosen)
      throw new AppError(
        'invalid_parameter',
        `Unknown plan "${input.plan_type}"; one of ${deps.plans
          .all()
          .map((p) => p.id)
          .join(', ')}`,
        'plan_type',
      )
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
  const updated = await deps.clients.setPlanAndLimits(clientId, changes)
  deps.logger.info('client changed by operator', { client_id: clientId, changes })
  return updated
}
