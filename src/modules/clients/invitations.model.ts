import { t } from 'elysia'
import { MemberResponse } from './clients.model'

/** The invite answer: the membership, plus its secret, shown this once. */
export const InvitationCreated = t.Composite([
  t.Omit(MemberResponse, ['invitation_expires_at']),
  t.Object({
    /** hand this to the invitee; only its SHA-256 is kept */
    invitation_token: t.String(),
    invitation_expires_at: t.String({ format: 'date-time' }),
  }),
])

export const InvitationAccept = t.Object({ token: t.String({ minLength: 1, maxLength: 200 }) })
