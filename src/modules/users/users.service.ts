import type { Database } from 'bun:sqlite'
import type { Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { AppError, notFound } from '../../http/errors'
import type { SystemRole, UserPrincipal } from '../../http/principal'
import { createClientWithOwner } from '../clients/clients.service'
import { activeMembership, membershipsOf } from '../clients/members.service'
import type { UserResponse } from './users.model'
import type { Passwords } from './users.passwords'
import { countUsers, insertUser, setHomeClient, setPasswordHash, setRole, userByEmail, userById, type UserRow } from './users.store'
import { revokeAllSessions } from './users.sessions'

export interface AccountDeps {
  sqlite: Database
  clock: Clock
  passwords: Passwords
}

/** Emails are compared lower-cased and trimmed: one account per address, whatever the case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()

export const userIdByEmail = (sqlite: Database, email: string) => userByEmail(sqlite, normalizeEmail(email))?.id ?? null

export const emailOfUser = (sqlite: Database, userId: string) => userById(sqlite, userId)?.email ?? null

export function toUserResponse(row: UserRow, actingClientId?: string): UserResponse {
  return {
    user_id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    client_id: actingClientId ?? row.client_id,
    role: row.role,
  }
}

export interface NewAccount {
  email: string
  password: string
  first_name?: string | null
  last_name?: string | null
  company?: string | null
}

/**
 * A user with their own new client (named after the company, else the email), of which
 * they are the owner. The first account of an empty instance is its operator, unless the
 * caller forces a role (the CLI). Invitations to the email are not joined here: that takes the
 * invitation's secret (POST /v1/invitations/accept), since registering proves no ownership of the email.
 */
export async function createAccount(deps: AccountDeps, input: NewAccount, forceRole?: SystemRole): Promise<UserRow> {
  const email = normalizeEmail(input.email)
  if (userByEmail(deps.sqlite, email)) throw emailTaken()
  const hash = await deps.passwords.hash(input.password) // slow: before the transaction, never inside
  const id = newId('usr')
  try {
    deps.sqlite.transaction(() => {
      const now = deps.clock.now()
      const role: SystemRole = forceRole ?? (countUsers(deps.sqlite) === 0 ? 'admin' : 'user')
      insertUser(deps.sqlite, { id, email, password_hash: hash, first_name: input.first_name ?? null, last_name: input.last_name ?? null, role, now })
      const clientId = createClientWithOwner(deps, { name: input.company?.trim() || email, ownerUserId: id })
      setHomeClient(deps.sqlite, id, clientId)
    })()
  } catch (err) {
    // Two registrations racing for one email: the unique index decides.
    if (String((err as Error).message).includes('UNIQUE constraint failed: users.email')) throw emailTaken()
    throw err
  }
  return userById(deps.sqlite, id)!
}

const emailTaken = () => new AppError('email_taken', 'An account with this email exists', 'email')

export function getUser(sqlite: Database, principal: UserPrincipal): UserResponse {
  const row = userById(sqlite, principal.userId)
  if (!row) throw notFound('User')
  return toUserResponse(row, principal.clientId)
}

export function listMemberships(deps: Pick<AccountDeps, 'sqlite' | 'clock'>, principal: UserPrincipal) {
  return membershipsOf(deps, principal.userId).map((m) => ({
    member_id: m.id,
    client_id: m.client_id,
    client_name: m.client_name,
    role: m.role,
    status: m.status,
    current: m.client_id === principal.clientId,
  }))
}

/** Moves the session to another client the user is an active member of. */
export function switchableClient(deps: Pick<AccountDeps, 'sqlite' | 'clock'>, principal: UserPrincipal, clientId: string): string {
  const member = activeMembership(deps, clientId, principal.userId)
  if (!member) throw notFound('Client')
  return clientId
}

// ---- operator tasks from the shell (vigil admin …) ----

function mustFind(sqlite: Database, email: string): UserRow {
  const row = userByEmail(sqlite, normalizeEmail(email))
  if (!row) throw new AppError('not_found', `No user with email ${normalizeEmail(email)}`)
  return row
}

export function setUserRole(deps: Pick<AccountDeps, 'sqlite' | 'clock'>, email: string, role: SystemRole): UserRow {
  const row = mustFind(deps.sqlite, email)
  setRole(deps.sqlite, row.id, role, deps.clock.now())
  return { ...row, role }
}

/** A new password ends every session of the account (its refresh tokens are revoked). */
export async function resetPassword(deps: AccountDeps, email: string, password: string): Promise<UserRow> {
  const row = mustFind(deps.sqlite, email)
  const hash = await deps.passwords.hash(password)
  deps.sqlite.transaction(() => {
    setPasswordHash(deps.sqlite, row.id, hash, deps.clock.now())
    revokeAllSessions(deps, row.id)
  })()
  return row
}
