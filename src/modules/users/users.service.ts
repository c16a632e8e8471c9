import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { newId } from '../../lib/ids'
import { AppError, notFound } from '../../http/errors'
import type { MemberRole, SystemRole, UserPrincipal } from '../../http/principal'
import type { UserResponse } from './users.model'
import type { Passwords } from './users.passwords'
import type { SessionsStore } from './users.sessions.store'
import type { UsersStore, UserRow } from './users.store'
import type { AccountHome, AccountsStore, InvitationCheck } from './users.accounts.store'
import type { NewClient } from '../clients/clients.store'
import type { UsersDirectory } from './users.directory'
import type { AccessTokens } from './users.tokens'
import type { LoginThrottle } from './users.throttle'
import type { SignupRules } from './users.model'

/** What accounts need of the clients domain: a user's own client, and their memberships. */
export interface Tenancy {
  /** a new client's row with the defaults every tenant starts with, named as given */
  newClient(name: string | null, now: number): NewClient
  /** the proofs an invitation's secret must pass for a new account with this email to join its client */
  invitationJoin(token: string, email: string, now: number): { tokenHash: string; check: InvitationCheck }
  /** the user's role in the client while an active member, else null */
  memberRole(userId: string, clientId: string): Promise<MemberRole | null>
  /** every client the user belongs to or is invited to, with its name */
  membershipsOf(userId: string): Promise<{ id: string; client_id: string; client_name: string | null; role: MemberRole; status: string }[]>
  /** the client a session acts for: the preferred one while still an active member there, else the home client */
  actingClient(userId: string, preferred: string | null, home: string | null): Promise<string | null>
}

export interface UsersDeps {
  store: UsersStore
  /** an account made with its home client, one transaction */
  accounts: AccountsStore
  sessions: SessionsStore
  clock: Clock
  logger: Logger
  passwords: Passwords
  tenancy: Tenancy
  tokens: AccessTokens
  refreshTtlSeconds: number
  throttle: { account: LoginThrottle; address: LoginThrottle }
  signup: SignupRules
  /** the per-hub answers other domains read synchronously (roles, emails, operators' clients) */
  directory?: Pick<UsersDirectory, 'changed'>
}

/** What the account tasks of the shell (vigil admin …) need: no tokens, no throttle. */
export type AccountDeps = Pick<UsersDeps, 'store' | 'accounts' | 'sessions' | 'clock' | 'passwords' | 'tenancy'>

/** Emails are compared lower-cased and trimmed: one account per address, whatever the case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()

export const userIdByEmail = async (deps: Pick<UsersDeps, 'store'>, email: string) => (await deps.store.byEmail(normalizeEmail(email)))?.id ?? null

export const emailOfUser = async (deps: Pick<UsersDeps, 'store'>, userId: string) => (await deps.store.byId(userId))?.email ?? null

/** Counts for the operator's GET /v1/admin/stats. */
export const userStats = async (deps: Pick<UsersDeps, 'store'>) => ({ users: await deps.store.count(), operators: await deps.store.countOperators() })

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
  deps: Pick<UsersDeps, 'store' | 'accounts' | 'clock' | 'passwords' | 'tenancy'>,
  input: NewAccount,
  forceRole?: SystemRole,
  opts: { admit?: (first: boolean) => void; invitationToken?: string | null } = {},
): Promise<UserRow> {
  const email = normalizeEmail(input.email)
  if (await deps.store.byEmail(email)) throw emailTaken()
  const hash = await deps.passwords.hash(input.password) // slow: before the transaction, never inside
  const id = newId('usr')
  const now = deps.clock.now()
  const user = { id, email, password_hash: hash, first_name: input.first_name ?? null, last_name: input.last_name ?? null, now }
  const home: AccountHome = opts.invitationToken
    ? { kind: 'invitation', ...deps.tenancy.invitationJoin(opts.invitationToken, email, now) }
    : { kind: 'own', client: deps.tenancy.newClient(input.company?.trim() || email, now), ownerMemberId: newId('mem') }
  const role = (first: boolean): SystemRole => {
    opts.admit?.(first)
    return forceRole ?? (first ? 'admin' : 'user')
  }
  // Two registrations racing for one email: the unique index decides.
  if ((await deps.accounts.create(user, role, home)) === 'email_taken') throw emailTaken()
  return (await deps.store.byId(id))!
}

const emailTaken = () => new AppError('email_taken', 'An account with this email exists', 'email')

export async function getUser(deps: Pick<UsersDeps, 'store'>, principal: UserPrincipal): Promise<UserResponse> {
  const row = await deps.store.byId(principal.userId)
  if (!row) throw notFound('User')
  return toUserResponse(row, principal.clientId)
}

export async function listMemberships(deps: Pick<UsersDeps, 'tenancy'>, principal: UserPrincipal) {
  return (await deps.tenancy.membershipsOf(principal.userId)).map((m) => ({
    member_id: m.id,
    client_id: m.client_id,
    client_name: m.client_name,
    role: m.role,
    status: m.status,
    current: m.client_id === principal.clientId,
  }))
}

/** Moves the session to another client the user is an active member of. */
export async function switchableClient(deps: Pick<UsersDeps, 'tenancy'>, principal: UserPrincipal, clientId: string): Promise<string> {
  if ((await deps.tenancy.memberRole(principal.userId, clientId)) === null) throw notFound('Client')
  return clientId
}

// ---- operator tasks from the shell (vigil admin …) ----

async function mustFind(deps: Pick<UsersDeps, 'store'>, email: string): Promise<UserRow> {
  const row = await deps.store.byEmail(normalizeEmail(email))
  if (!row) throw new AppError('not_found', `No user with email ${normalizeEmail(email)}`)
  return row
}

/** A new instance role; the hubs' cached roles and operators' clients are told (users.directory.ts). */
export async function setUserRole(deps: Pick<UsersDeps, 'store' | 'clock' | 'directory'>, email: string, role: SystemRole): Promise<UserRow> {
  const row = await mustFind(deps, email)
  await deps.store.setRole(row.id, role, deps.clock.now())
  deps.directory?.changed?.(row.id)
  return { ...row, role }
}

/** A new password ends every session of the account (its refresh tokens are revoked). */
export async function resetPassword(deps: Pick<UsersDeps, 'store' | 'sessions' | 'clock' | 'passwords'>, email: string, password: string): Promise<UserRow> {
  const row = await mustFind(deps, email)
  const hash = await deps.passwords.hash(password)
  await deps.sessions.replacePassword(row.id, hash, null, deps.clock.now())
  return row
}
