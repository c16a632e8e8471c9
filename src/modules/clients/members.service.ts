import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { AppError, forbidden, notFound } from '../../http/errors'
import type { MemberRole } from '../../http/principal'
import type { MemberResponse } from './clients.model'
import { getClient, type ClientsDeps } from './clients.service'
import type { MemberRow, MemberStatus, SeatCounts } from './members.store'

/** The secret's prefix only makes a leaked one recognisable. */
export const INVITATION_PREFIX = 'vin_'

/** A membership as answered; the email comes from the account once there is one (the users domain owns it). */
export async function toMemberResponse(deps: Pick<ClientsDeps, 'accounts'>, row: MemberRow): Promise<MemberResponse> {
  const email = row.user_id !== null ? await deps.accounts.emailOf(row.user_id) : null
  return {
    id: row.id,
    client_id: row.client_id,
    user_id: row.user_id ?? '',
    role: row.role,
    status: row.status,
    invited_email: row.invited_email,
    email: email ?? row.invited_email,
    invitation_expires_at: row.status === 'invited' && row.invite_expires_at !== null ? toIso(row.invite_expires_at) : null,
    created_at: toIso(row.created_at),
  }
}

/** What managing members needs: the stores and services, not SQLite's statements, so it runs on either engine. */
type ManageDeps = Pick<ClientsDeps, 'store' | 'members' | 'roles' | 'clock' | 'accounts' | 'ownLimits'>

export async function listMembers(deps: Pick<ClientsDeps, 'members' | 'accounts'>, clientId: string) {
  const rows = await deps.members.ofClient(clientId)
  return Promise.all(rows.map((row) => toMemberResponse(deps, row)))
}

const seatsFull = (maxUsers: number) => new AppError('user_limit_reached', `This account allows ${maxUsers} members; remove or disable one first`)

/** Admins manage members and admins; only owners touch owners (or make new ones). */
function ensureMayManage(actor: MemberRole, target: MemberRole | null, newRole?: MemberRole) {
  if (actor === 'owner') return
  if (target === 'owner' || newRole === 'owner') throw forbidden('Only an owner may add, change or remove owners')
}

/** The last active owner keeps the account manageable: it can be neither demoted, disabled nor removed. */
function ensureNotLastOwner(row: MemberRow, counts: SeatCounts) {
  if (row.role === 'owner' && row.status === 'active' && counts.activeOwners <= 1) {
    throw new AppError('last_owner', 'This is the last owner of the account; make another member owner first')
  }
}

/** How long an invitation's secret can be used. */
export const INVITATION_TTL_MS = 7 * 86_400_000

const alreadyThere = () => new AppError('conflict', 'This email is already a member of (or invited to) this account', 'email')

/**
 * Invites an email. The answer carries, once, the invitation's secret: the inviter hands it
 * to the invitee, who accepts with it (POST /v1/invitations/accept) while signed in with that
 * email. Only its SHA-256 is stored. Knowing or registering the email alone grants nothing.
 */
export async function inviteMember(
  deps: ManageDeps,
  clientId: string,
  actor: MemberRole,
  input: { email: string; role?: MemberRole },
): Promise<MemberResponse & { invitation_token: string; invitation_expires_at: string }> {
  const email = input.email.trim().toLowerCase()
  const role = input.role ?? 'member'
  ensureMayManage(actor, null, role)
  const userId = await deps.accounts.userIdByEmail(email)
  const existing = userId ? await deps.members.byUser(clientId, userId) : await deps.members.byInvitedEmail(clientId, email)
  if (existing) throw alreadyThere()
  const { max_users } = await getClient(deps, clientId)
  const id = newId('mem')
  const token = INVITATION_PREFIX + randomToken(32)
  const expiresAt = deps.clock.now() + INVITATION_TTL_MS
  const invitation = { id, client_id: clientId, user_id: userId, invited_email: email, role, now: deps.clock.now() }
  // the seat count and the insert are one transaction; two invitations racing for one email: the unique indexes decide
  const outcome = await deps.members.invite({ ...invitation, invite_token_hash: sha256Hex(token), invite_expires_at: expiresAt }, max_users)
  if (outcome === 'no_seat') throw seatsFull(max_users)
  if (outcome === 'taken') throw alreadyThere()
  return { ...(await toMemberResponse(deps, (await deps.members.byId(clientId, id))!)), invitation_token: token, invitation_expires_at: toIso(expiresAt) }
}

export async function changeMember(
  deps: ManageDeps,
  clientId: string,
  actor: MemberRole,
  memberId: string,
  input: { role?: MemberRole; status?: Exclude<MemberStatus, 'invited'> },
): Promise<MemberResponse> {
  // read before: re-enabling a member needs a seat under the limits in force
  const { max_users } = await getClient(deps, clientId)
  const found = await deps.members.change(
    clientId,
    memberId,
    (row, counts) => {
      ensureMayManage(actor, row.role, input.role)
      const demoted = input.role !== undefined && input.role !== 'owner'
      if (demoted || input.status === 'disabled') ensureNotLastOwner(row, counts)
      if (input.status && row.status === 'invited') {
        throw new AppError('conflict', 'The invitation is still pending; only the invitee can accept it (delete it to withdraw)', 'status')
      }
      if (input.status === 'active' && row.status === 'disabled' && counts.seatsUsed >= max_users) throw seatsFull(max_users)
      return input
    },
    deps.clock.now(),
  )
  if (!found) throw notFound('Member')
  deps.roles.changed?.(clientId)
  return toMemberResponse(deps, (await deps.members.byId(clientId, memberId))!)
}

export async function removeMember(deps: ManageDeps, clientId: string, actor: MemberRole, memberId: string): Promise<void> {
  const found = await deps.members.change(
    clientId,
    memberId,
    (row, counts) => {
      ensureMayManage(actor, row.role)
      ensureNotLastOwner(row, counts)
      return 'delete'
    },
    deps.clock.now(),
  )
  if (!found) throw notFound('Member')
  deps.roles.changed?.(clientId)
}

/** The caller's role in a client, or null when it is not an active member. Read on every request: at once when cached (clients.roles.ts). */
export const memberRole = (deps: Pick<ClientsDeps, 'roles'>, userId: string, clientId: string): MemberRole | null | Promise<MemberRole | null> =>
  deps.roles.roleOf(userId, clientId)

/** The client a session acts for (see sqliteMembers' actingClient). */
export const actingClient = (deps: Pick<ClientsDeps, 'members'>, userId: string, preferred: string | null, home: string | null) =>
  deps.members.actingClient(userId, preferred, home)

export const membershipsOf = (deps: Pick<ClientsDeps, 'members'>, userId: string) => deps.members.ofUser(userId)

/** Seats in use in a client (pending invitations hold one), for the operator's list. */
export const seatsUsed = (deps: Pick<ClientsDeps, 'members'>, clientId: string) => deps.members.seatsUsed(clientId)

/** The oldest active owner's email: how the operator tells clients apart when their names say little. */
export async function ownerEmail(deps: Pick<ClientsDeps, 'members' | 'accounts'>, clientId: string): Promise<string | null> {
  const userId = await deps.members.firstOwner(clientId)
  return userId === null ? null : deps.accounts.emailOf(userId)
}
