import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { newId } from '../../lib/ids'
import { AppError, notFound } from '../../http/errors'
import type { MemberRole, SystemRole, UserPrincipal } from '../../http/principal'
import type { UserResponse } from './users.model'
import type { Passwords } from './users.passwords'
import type { SessionsStore } from './users.sessions.store'
import type { UsersStore, UserRow } from './users.store'
import type { AccessTokens } from './users.tokens'
import type { LoginThrottle } from './users.throttle'
import type { SignupRules } from './users.model'

/** What accounts need of the clients domain: a user's own client, and their memberships. */
export interface Tenancy {
  /** a new client with the user as its owner; runs inside the caller's transaction */
  createClientWithOwner(opts: { name: string | null; ownerUserId: string }): string
  /** the user's role in the client while an active member, else null */
  memberRole(userId: string, clientId: string): MemberRole | null
  /** every client the user belongs to or is invited to, with its name */
  membershipsOf(userId: string): { id: string; client_id: string; client_name: string | null; role: MemberRole; status: string }[]
  /** the client a session acts for: the preferred one while still an active member there, else the home client */
  actingClient(userId: string, preferred: string | null, home: string | null): string | null
  /** joins a new user to the client an invitation is for and returns it; runs inside the caller's transaction */
  joinOnRegistration(token: string, email: string, userId: string): string
}

export interface UsersDeps {
  store: UsersStore
  sessions: SessionsStore
  clock: Clock
  logger: Logger
  passwords: Passwords
  tenancy: Tenancy
  tokens: AccessTokens
  refreshTtlSeconds: number
  throttle: { account: LoginThrottle; address: LoginThrottle }
  signup: SignupRules
}

/** What the account tasks of the shell (vigil admin …) need: no tokens, no throttle. */
export type AccountDeps = Pick<UsersDeps, 'store' | 'sessions' | 'clock' | 'passwords' | 'tenancy'>

/** Emails are compared lower-cased and trimmed: one account per address, whatever the case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()

export const userIdByEmail = (deps: Pick<UsersDeps, 'store'>, email: string) => deps.store.byEmail(normalizeEmail(email))?.id ?? null

export const emailOfUser = (deps: Pick<UsersDeps, 'store'>, userId: string) => deps.store.byId(userId)?.email ?? null

/** The stored instance role of a user (null: no such account); access tokens defer to it on every request. */
export function currentRole(deps: Pick<UsersDeps, 'store'>, userId: string): SystemRole | null {
  const role = deps.store.roleOf(userId)
  return role === 'admin' || role === 'user' ? role : null
}

/**
 * Whether a client is an instance operator's own: the home client of a user with the instance
 * role admin who is still an active member of it. Being invited into a tenant's client does not
 * make that client the operator's; what the operator may reach (the LAN) stays with their own.
 */
export const isOperatorClient = (deps: Pick<UsersDeps, 'store' | 'tenancy'>, clientId: string) =>
  deps.store.operatorsHomedAt(clientId).some((userId) => deps.tenancy.memberRole(userId, clientId) !== null)

/** Counts for the operator's GET /v1/admin/stats. */
export const userStats = (deps: Pick<UsersDeps, 'store'>) => ({ users: deps.store.count(), operators: deps.store.countOperators() })

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
 * caller forces a role (the CLI). Invitations to the email are joined only with the invitation's
 * secret (`invitationToken`, or later POST /v1/invitations/accept), since registering proves no
 * ownership of the email; then the account's home is the inviting client, not a new one.
 * `admit` decides inside the transaction whether the account may be made (first: none exists yet).
 */
export async function createAccount(
  deps: Pick<UsersDeps, 'store' | 'clock' | 'passwords' | 'tenancy'>,
  input: NewAccount,
  forceRole?: SystemRole,
  opts: { admit?: (first: boolean) => void; invitationToken?: string | null } = {},
): Promise<UserRow> {
  const email = normalizeEmail(input.email)
  if (deps.store.byEmail(email)) throw emailTaken()
  const hash = await deps.passwords.hash(input.password) // slow: before the transaction, never inside
  const id = newId('usr')
  try {
    deps.store.transaction(() => {
      const now = deps.clock.now()
      const first = deps.store.count() === 0
      opts.admit?.(first)
      const role: SystemRole = forceRole ?? (first ? 'admin' : 'user')
      deps.store.insert({ id, email, password_hash: hash, first_name: input.first_name ?? null, last_name: input.last_name ?? null, role, now })
      const clientId = opts.invitationToken
        ? deps.tenancy.joinOnRegistration(opts.invitationToken, email, id)
        : deps.tenancy.createClientWithOwner({ name: input.company?.trim() || email, ownerUserId: id })
      deps.store.setHomeClient(id, clientId)
    })
  } catch (err) {
    // Two registrations racing for one email: the unique index decides.
    if (String((err as Error).message).includes('UNIQUE constraint failed: users.email')) throw emailTaken()
    throw err
  }
  return deps.store.byId(id)!
}

const emailTaken = () => new AppError('email_taken', 'An account with this email exists', 'email')

export function getUser(deps: Pick<UsersDeps, 'store'>, principal: UserPrincipal): UserResponse {
  const row = deps.store.byId(principal.userId)
  if (!row) throw notFound('User')
  return toUserResponse(row, principal.clientId)
}

export function listMemberships(deps: Pick<UsersDeps, 'tenancy'>, principal: UserPrincipal) {
  return deps.tenancy.membershipsOf(principal.userId).map((m) => ({
    member_id: m.id,
    client_id: m.client_id,
    client_name: m.client_name,
    role: m.role,
    status: m.status,
    current: m.client_id === principal.clientId,
  }))
}

/** Moves the session to another client the user is an active member of. */
export function switchableClient(deps: Pick<UsersDeps, 'tenancy'>, principal: UserPrincipal, clientId: string): string {
  if (deps.tenancy.memberRole(principal.userId, clientId) === null) throw notFound('Client')
  return clientId
}

// ---- operator tasks from the shell (vigil admin …) ----

function mustFind(deps: Pick<UsersDeps, 'store'>, email: string): UserRow {
  const row = deps.store.byEmail(normalizeEmail(email))
  if (!row) throw new AppError('not_found', `No user with email ${normalizeEmail(email)}`)
  return row
}

export function setUserRole(deps: Pick<UsersDeps, 'store' | 'clock'>, email: string, role: SystemRole): UserRow {
  const row = mustFind(deps, email)
  deps.store.setRole(row.id, role, deps.clock.now())
  return { ...row, role }
}

/** A new password ends every session of the account (its refresh tokens are revoked). */
export async function resetPassword(deps: Pick<UsersDeps, 'store' | 'sessions' | 'clock' | 'passwords'>, email: string, password: string): Promise<UserRow> {
  const row = mustFind(deps, email)
  const hash = await deps.passwords.hash(password)
  await deps.sessions.replacePassword(row.id, hash, null, deps.clock.now())
  return row
}
