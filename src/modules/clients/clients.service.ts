import type { Database } from 'bun:sqlite'
import type { Clock } from '../../lib/clock'
import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { notFound } from '../../http/errors'
import type { ClientResponse } from './clients.model'
import { clientById, insertClient, updateClientColumns, type ClientRow } from './clients.store'
import { insertMember } from './members.store'

export interface ClientsDeps {
  sqlite: Database
  clock: Clock
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

/**
 * A new tenant with the spec's defaults (free plan, 1 device, 50 users, status none) and
 * its first owner. Runs inside the caller's transaction: no await here.
 */
export function createClientWithOwner(deps: ClientsDeps, opts: { name: string | null; ownerUserId: string }): string {
  const now = deps.clock.now()
  const id = newId('cli')
  insertClient(deps.sqlite, { id, name: opts.name, now })
  insertMember(deps.sqlite, { id: newId('mem'), client_id: id, user_id: opts.ownerUserId, invited_email: null, role: 'owner', status: 'active', now })
  return id
}

export function getClient(deps: ClientsDeps, clientId: string): ClientRow {
  const row = clientById(deps.sqlite, clientId)
  if (!row) throw notFound('Client')
  return row
}

/** The tenant-side update: name and billing email only. Plan and limits are not reachable from here. */
export function updateClientProfile(deps: ClientsDeps, clientId: string, input: { name?: string | null; billing_email?: string | null }): ClientRow {
  const changes: Record<string, string | null> = {}
  if (input.name !== undefined) changes.name = input.name === null ? null : input.name.trim() || null
  if (input.billing_email !== undefined) changes.billing_email = input.billing_email?.trim().toLowerCase() ?? null
  updateClientColumns(deps.sqlite, clientId, changes, deps.clock.now())
  return getClient(deps, clientId)
}
