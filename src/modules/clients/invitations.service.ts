import { AppError, forbidden } from '../../http/errors'
import { sha256Hex } from '../../lib/crypto'
import type { ClientsDeps } from './clients.service'
import { toMemberResponse } from './members.service'

const unusable = () => new AppError('not_found', 'This invitation is unknown, already used or expired; ask for a new one')

/**
 * The invitee's side. The secret proves the invitation reached them; the account's email must
 * also be the invited one, so a forwarded or leaked link is useless to anyone else. Single use:
 * accepting clears the secret.
 */
export function acceptInvitation(deps: Pick<ClientsDeps, 'members' | 'clock' | 'accounts'>, userId: string, token: string) {
  const accepted = deps.members.immediate(() => {
    const row = deps.members.invitationByTokenHash(sha256Hex(token))
    if (row?.status !== 'invited' || row.invite_expires_at === null || row.invite_expires_at <= deps.clock.now()) throw unusable()
    if (deps.accounts.emailOf(userId) !== row.invited_email || (row.user_id !== null && row.user_id !== userId)) {
      throw forbidden('This invitation was sent to another email address; sign in with that one')
    }
    if (row.user_id === null && deps.members.byUser(row.client_id, userId)) {
      throw new AppError('conflict', 'You are already a member of this account')
    }
    deps.members.acceptInvitation(row.id, userId, deps.clock.now())
    return { clientId: row.client_id, id: row.id }
  })
  return toMemberResponse(deps, deps.members.byId(accepted.clientId, accepted.id)!)
}

const invalidInvitation = (message: string) => new AppError('invalid_invitation', message, 'invitation_token')

/**
 * Registration with an invitation: the new account joins the inviting client as the invitation
 * says, in the same step. The same proofs as accepting: the secret, and the email it was sent to.
 * Runs inside the caller's transaction (no await); returns the client joined.
 */
export function joinOnRegistration(deps: Pick<ClientsDeps, 'members' | 'clock'>, token: string, email: string, userId: string): string {
  const row = deps.members.invitationByTokenHash(sha256Hex(token))
  if (row?.status !== 'invited' || row.invite_expires_at === null || row.invite_expires_at <= deps.clock.now() || row.user_id !== null) {
    throw invalidInvitation('This invitation is unknown, already used or expired; ask for a new one')
  }
  if (row.invited_email !== email) throw invalidInvitation('This invitation was sent to another email address; register with that one')
  deps.members.acceptInvitation(row.id, userId, deps.clock.now())
  return row.client_id
}
