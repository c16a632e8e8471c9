import { AppError, forbidden } from '../../http/errors'
import { sha256Hex } from '../../lib/crypto'
import type { ClientsDeps } from './clients.service'
import { toMemberResponse } from './members.service'
import type { InvitationCheck, MemberRow } from './members.store'

const unusable = () => new AppError('not_found', 'This invitation is unknown, already used or expired; ask for a new one')

/**
 * The invitee's side. The secret proves the invitation reached them; the account's email must
 * also be the invited one, so a forwarded or leaked link is useless to anyone else. Single use:
 * accepting clears the secret.
 */
export async function acceptInvitation(deps: Pick<ClientsDeps, 'members' | 'roles' | 'clock' | 'accounts'>, userId: string, token: string) {
  // the account's email does not change with the invitation: read before the transaction
  const email = await deps.accounts.emailOf(userId)
  const now = deps.clock.now()
  const row = await deps.members.accept(sha256Hex(token), userId, now, (row, alreadyMember) => {
    if (row?.status !== 'invited' || row.invite_expires_at === null || row.invite_expires_at <= now) throw unusable()
    if (email !== row.invited_email || (row.user_id !== null && row.user_id !== userId)) {
      throw forbidden('This invitation was sent to another email address; sign in with that one')
    }
    if (row.user_id === null && alreadyMember) throw new AppError('conflict', 'You are already a member of this account')
  })
  // a hub that cached "not a member" for this account must read it again
  deps.roles.changed?.(row.client_id)
  return toMemberResponse(deps, row)
}

const invalidInvitation = (message: string) => new AppError('invalid_invitation', message, 'invitation_token')

/**
 * Registration with an invitation: the new account joins the inviting client as the invitation
 * says, in the accounts store's transaction. The same proofs as accepting: the secret, and the
 * email it was sent to. Returns the secret's hash and the check the store runs on the row it reads.
 */
export function invitationJoin(token: string, email: string, now: number): { tokenHash: string; check: InvitationCheck } {
  return {
    tokenHash: sha256Hex(token),
    check(row): asserts row is MemberRow {
      if (row?.status !== 'invited' || row.invite_expires_at === null || row.invite_expires_at <= now || row.user_id !== null) {
        throw invalidInvitation('This invitation is unknown, already used or expired; ask for a new one')
      }
      if (row.invited_email !== email) throw invalidInvitation('This invitation was sent to another email address; register with that one')
    },
  }
}
