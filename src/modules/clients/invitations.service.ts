import { AppError, forbidden } from '../../http/errors'
import { sha256Hex } from '../../lib/crypto'
import { emailOfUser } from '../users/users.service'
import type { ClientsDeps } from './clients.service'
import { toMemberResponse } from './members.service'
import { acceptInvitationRow, invitationByTokenHash, memberById, memberByUser } from './members.store'

const unusable = () => new AppError('not_found', 'This invitation is unknown, already used or expired; ask for a new one')

/**
 * The invitee's side. The secret proves the invitation reached them; the account's email must
 * also be the invited one, so a forwarded or leaked link is useless to anyone else. Single use:
 * accepting clears the secret.
 */
export function acceptInvitation(deps: ClientsDeps, userId: string, token: string) {
  const clientId = deps.sqlite.transaction(() => {
    const row = invitationByTokenHash(deps.sqlite, sha256Hex(token))
    if (!row || row.status !== 'invited' || row.invite_expires_at === null || row.invite_expires_at <= deps.clock.now()) throw unusable()
    if (emailOfUser(deps.sqlite, userId) !== row.invited_email || (row.user_id !== null && row.user_id !== userId)) {
      throw forbidden('This invitation was sent to another email address; sign in with that one')
    }
    if (row.user_id === null && memberByUser(deps.sqlite, row.client_id, userId)) {
      throw new AppError('conflict', 'You are already a member of this account')
    }
    acceptInvitationRow(deps.sqlite, row.id, userId, deps.clock.now())
    return { clientId: row.client_id, id: row.id }
  }).immediate()
  return toMemberResponse(memberById(deps.sqlite, clientId.clientId, clientId.id)!)
}
