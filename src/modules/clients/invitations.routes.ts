import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { jsonInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import { MemberResponse } from './clients.model'
import { InvitationAccept } from './invitations.model'
import { acceptInvitation } from './invitations.service'
import type { ClientsDeps } from './clients.service'

const invitationAccept = jsonInput(InvitationAccept)

/** The invitee accepts with the invitation's secret; then POST /v1/auth/switch acts for that client. */
export function invitationsRoutes(deps: ClientsDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/invitations' })
    .use(authGuards(auth))
    .post('/accept', ({ user, body }) => acceptInvitation(deps, user.userId, invitationAccept.read(body).token), {
      user: true,
      response: { 200: MemberResponse },
      detail: {
        ...routeErrors('not_found', 'conflict'),
        ...invitationAccept.doc,
        tags: ['clients'],
        summary: 'Accept an invitation with its secret, signed in with the invited email (single use, 7 days)',
      },
    })
}
