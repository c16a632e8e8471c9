import type { Clock } from '../../lib/clock'
import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { notFound } from '../../http/errors'
import { NEW_CLIENT, type ClientResponse } from './clients.model'
import { withLimitsInForce, type ClientLimits, type OwnInstanceLimits } from './clients.limits'
import type { ClientChanges, ClientRow, ClientsStore, NewClient, PlanInForce } from './clients.store'
import type { MembersStore } from './members.store'
import type { MemberRoles } from './clients.roles'

/** What the clients domain needs of the users domain: accounts by email and back. */
export interface Accounts {
  userIdByEmail(email: string): Promise<string | null>
  emailOf(userId: string): Promise<string | null>
}

export interface ClientsDeps {
  store: ClientsStore
  members: MembersStore
  /** the member's role read on every request, cached per hub where the engine needs it */
  roles: MemberRoles
  clock: Clock
  accounts: Accounts
  /** cached per-client rate limits, dropped when a plan or limit changes */
  limits: ClientLimits
  /** own-instance mode: what free clients get instead of the free plan's limits (null: service mode) */
  ownLimits: OwnInstanceLimits | null
}

export function toClientResponse(row: ClientRow): ClientResponse {
  return {
    client_id: row.id,
    name: row.name,
    platform: row.platform,
    plan_type: row.plan_type,
    subscription_status: row.subscription_status,
    max_devices: row.max_devices,
    max_users: row.max_users,
    billing_email: row.billing_email,
    created_at: toIso(row.created_at),
  }
}

/** A new tenant's row with the defaults of NEW_CLIENT; the accounts store inserts it with its first owner. */
export const newClientRow = (name: string | null, now: number): NewClient => ({ id: newId('cli'), name, ...NEW_CLIENT, now })

/** The client with the limits in force (see withLimitsInForce), 404 when unknown. */
export async function getClient(deps: Pick<ClientsDeps, 'store' | 'ownLimits'>, clientId: string): Promise<ClientRow> {
  const row = await deps.store.byId(clientId)
  if (!row) throw notFound('Client')
  return withLimitsInForce(row, deps.ownLimits)
}

/** The tenant-side update: name and billing email only. Plan and limits are not reachable from here. */
export async function updateClientProfile(
  deps: Pick<ClientsDeps, 'store' | 'clock' | 'ownLimits'>,
  clientId: string,
  input: { name?: string | null; billing_email?: string | null },
): Promise<ClientRow> {
  const changes: ClientChanges = {}
  if (input.name !== undefined) changes.name = input.name === null ? null : input.name.trim() || null
  if (input.billing_email !== undefined) changes.billing_email = input.billing_email?.trim().toLowerCase() ?? null
  await deps.store.update(clientId, changes, deps.clock.now())
  return getClient(deps, clientId)
}

/** The plan and limit columns only the operator (or billing) writes. */
export type PlanAndLimits = Partial<Pick<ClientRow, 'plan_type' | 'max_devices' | 'max_users' | 'max_devices_override' | 'max_users_override' | 'rate_limit'>>

/** Writes plan and limit columns and drops the cached rate limit, so the change bites on the next request. */
export async function setPlanAndLimits(
  deps: Pick<ClientsDeps, 'store' | 'clock' | 'limits' | 'ownLimits'>,
  clientId: string,
  changes: PlanAndLimits,
): Promise<ClientRow> {
  await deps.store.update(clientId, changes, deps.clock.now())
  deps.limits.invalidate(clientId)
  return getClient(deps, clientId)
}

/** One page of clients, oldest first, and how many there are, for the operator's list. */
export async function clientsPage(deps: Pick<ClientsDeps, 'store' | 'ownLimits'>, limit: number, offset: number) {
  const rows = await deps.store.page(limit, offset)
  return { rows: rows.map((row) => withLimitsInForce(row, deps.ownLimits)), total: await deps.store.count() }
}

/** Counts for the operator's GET /v1/admin/stats. */
export const clientStats = async (deps: Pick<ClientsDeps, 'store' | 'members'>) => ({
  clients: await deps.store.count(),
  paying_clients: await deps.store.countPaying(),
  members: await deps.members.countActive(),
})

/** The client as the operator sees it: with the hand-set rate limit and limit overrides (null: the plan's). */
export const toOperatorView = (row: ClientRow) => ({
  ...toClientResponse(row),
  rate_limit: row.rate_limit,
  max_devices_override: row.max_devices_override,
  max_users_override: row.max_users_override,
})

// For the fleet group (devices, billing), which reach clients only through these.

/** A client, or null when it does not exist. */
export const findClient = async (deps: Pick<ClientsDeps, 'store'>, clientId: string): Promise<ClientRow | null> => deps.store.byId(clientId)

/** How many devices the client may register (a new client's allowance for an unknown one). */
export async function maxDevicesOf(deps: Pick<ClientsDeps, 'store' | 'ownLimits'>, clientId: string): Promise<number> {
  const row = await deps.store.byId(clientId)
  return row ? withLimitsInForce(row, deps.ownLimits).max_devices : NEW_CLIENT.max_devices
}

/**
 * Puts a plan billing decided on in force: its type, status and limits, the operator's overrides
 * winning over the plan's limits (one statement, so an override set meanwhile is never undone),
 * and drops the cached rate limit on every hub.
 */
export async function applyBillingPlan(deps: Pick<ClientsDeps, 'store' | 'clock' | 'limits'>, clientId: string, plan: PlanInForce): Promise<void> {
  await deps.store.applyPlan(clientId, plan, deps.clock.now())
  deps.limits.invalidate(clientId)
}
