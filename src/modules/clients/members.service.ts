import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { AppError, forbidden, notFound } from '../../http/errors'
import type { MemberRole } from '../../http/principal'
import type { MemberResponse } from './clients.model'
import { getClientInTransaction, type ClientsDeps } from './clients.service'
import type { MemberRow, MemberStatus } from './members.store'

/** The secret's prefix only makes a leaked one recognisable. */
export const INVITATION_PREFIX = 'vin_'

/** A membership as answered; the email comes from the account once there is one (the users domain owns it). */
export function toMemberResponse(deps: Pick<ClientsDeps, 'accounts'>, row: MemberRow): MemberResponse {
  return {
    id: row.id,
    client_id: row.client_id,
    user_id: row.user_id ?? '',
    role: row.role,
    status: row.status,
    invited_email: row.invited_email,
    email: (row.user_id !== null ? deps.accounts.emailOf(row.user_id) : null) ?? row.invited_email,
    invitation_expires_at: row.status === 'invited' && row.invite_expires_at !== null ? toIso(row.invite_expires_at) : null,
    created_at: toIso(row.created_at),
  }
}

export const listMembers = (deps: Pick<ClientsDeps, 'members' | 'accounts'>, clientId: string) =>
  deps.members.ofClient(clientId).map((row) => toMemberResponse(deps, row))

function ensureSeat(deps: ClientsDeps, clientId: string) {
  const { max_users } = getClientInTransaction(deps, clientId)
  if (deps.members.seatsUsed(clientId) >= max_users) {
    throw new AppError('user_limit_reached', `This account allows ${max_users} members; remove or disable one first`)
  }
}

/** Admins manage members and admins; only owners touch owners (or make new ones). */
function ensureMayManage(actor: MemberRole, target: MemberRole | null, newRole?: MemberRole) {
  if (actor === 'owner') return
  if (target === 'owner' || newRole === 'owner') throw forbidden('Only an owner may add, change or remove owners')
}

/** The last active owner keeps the account manageable: it can be neither demoted, disabled nor removed. */
function ensureNotLastOwner(deps: ClientsDeps, row: MemberRow) {
  if (row.role === 'owner' && row.status === 'active' && deps.members.activeOwners(row.client_id) <= 1) {
    throw new AppError('last_owner', 'This is the last owner of the account; make another member owner first')
  }
}

/** How long an invitation's secret can be used. */
export const INVITATION_TTL_MS = 7 * 86_400_000

/**
 * Invites an email. The answer carries, once, the invitation's secret: the inviter hands it
 * to the invitee, who accepts with it (POST /v1/invitations/accept) while signed in with that
 * email. Only its SHA-256 is stored. Knowing or registering the email alone grants nothing.
 */
export function inviteMember(
  deps: ClientsDeps,
  clientId: string,
  actor: MemberRole,
  input: { email: string; role?: MemberRole },
): MemberResponse & { invitation_token: string; invitation_expires_at: string } {
  const email = input.email.trim().toLowerCase()
  const role = input.role ?? 'member'
  ensureMayManage(actor, null, role)
  const userId = deps.accounts.userIdByEmail(email)
  const existing = userId ? deps.members.byUser(clientId, userId) : deps.members.byInvitedEmail(clientId, email)
  if (existing) throw new AppError('conflict', 'This email is already a member of (or invited to) this account', 'email')
  const id = newId('mem')
  const token = INVITATION_PREFIX + randomToken(32)
  const expiresAt = deps.clock.now() + INVITATION_TTL_MS
  try {
    deps.members.transaction(() => {
      ensureSeat(deps, clientId)
      deps.members.insert({ id, client_id: clientId, user_id: userId, invited_email: email, role, status: 'invited', now: deps.clock.now() })
      deps.members.setInvitationSecret(id, sha256Hex(token), expiresAt)
    })
  } catch (err) {
    // Two invitations racing for one email: the unique indexes decide.
    if (String((err as Error).message).includes('UNIQUE'))
      throw new AppError('conflict', 'This email is already a member of (or invited to) this account', 'email')
    throw err
  }
  return { ...toMemberResponse(deps, deps.members.byId(clientId, id)!), invitation_token: token, invitation_expires_at: toIso(expiresAt) }
}

export function changeMember(
  deps: ClientsDeps,
  clientId: string,
  actor: MemberRole,
  memberId: string,
  input: { role?: MemberRole; status?: Exclude<MemberStatus, 'invited'> },
): MemberResponse {
  deps.members.transaction(() => {
    const row = deps.members.byId(clientId, memberId)
    if (!row) throw notFound('Member')
    ensureMayManage(actor, row.role, input.role)
    const demoted = input.role !== undefined && input.role !== 'owner'
    if (demoted || input.status === 'disabled') ensureNotLastOwner(deps, row)
    if (input.status && row.status === 'invited') {
      throw new AppError('conflict', 'The invitation is still pending; only the invitee can accept it (delete it to withdraw)', 'status')
    }
    if (input.status === 'active' && row.status === 'disabled') ensureSeat(deps, clientId)
    deps.members.update(row.id, input, deps.clock.now())
  })
  return toMemberResponse(deps, deps.members.byId(clientId, memberId)!)
}

export function removeMember(deps: ClientsDeps, clientId: string, actor: MemberRole, memberId: string) {
  deps.members.transaction(() => {
    const row = deps.members.byId(clientId, memberId)
    if (!row) throw notFound('Member')
    ensureMayManage(actor, row.role)
    ensureNotLastOwner(deps, row)
    deps.members.delete(row.id)
  })
}

/** The caller's role in a client, or null when it is not an active member. Read on every request. */
export const memberRole = (deps: Pick<ClientsDeps, 'members'>, userId: string, clientId: string): MemberRole | null => deps.members.activeRole(userId, clientId)

/** The client a session acts for (see MembersStore.actingClient). */
export const actingClient = (deps: Pick<ClientsDeps, 'members'>, userId: string, preferred: string | null, home: string | null) =>
  deps.members.actingClient(userId, preferred, home)

export const membershipsOf = (deps: Pick<ClientsDeps, 'members'>, userId: string) => deps.members.ofUser(userId)

/** Seats in use in a client (pending invitations hold one). */
export const seatsUsed = (deps: Pick<ClientsDeps, 'members'>, clientId: string) => deps.members.seatsUsed(clientId)

/** The oldest active owner's email: how the operator tells clients apart when their names say little. */
export function ownerEmail(deps: Pick<ClientsDeps, 'members' | 'accounts'>, clientId: string): string | null {
  const userId = deps.members.firstOwner(clientId)
  return userId === null ? null : deps.accounts.emailOf(userId)
}
