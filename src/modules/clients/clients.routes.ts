import { Elysia, t } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { routeErrors } from '../../http/openapi-errors'
import { jsonInput } from '../../http/input'
import { ClientResponse, ClientUpdate, MemberInvite, MemberParams, MemberResponse, MemberUpdate } from './clients.model'
import { getClient, toClientResponse, updateClientProfile, type ClientsDeps } from './clients.service'
import { changeMember, inviteMember, listMembers, removeMember } from './members.service'
import { InvitationCreated } from './invitations.model'

const tags = ['clients']
const managers = { roles: ['owner' as const, 'admin' as const] }
const clientUpdate = jsonInput(ClientUpdate)
const memberInvite = jsonInput(MemberInvite)
const memberUpdate = jsonInput(MemberUpdate)

/** The caller's own client and its members. Every read and write is of `user.clientId` only. */
export function clientsRoutes(deps: ClientsDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/clients/me' })
    .use(authGuards(auth))
    .get('', async ({ user }) => toClientResponse(await getClient(deps, user.clientId)), {
      user: true,
      response: { 200: ClientResponse },
      detail: { tags, summary: 'The client (tenant) of the caller' },
    })
    .patch('', async ({ user, body }) => toClientResponse(await updateClientProfile(deps, user.clientId, clientUpdate.read(body))), {
      user: managers,
      response: { 200: ClientResponse },
      detail: { ...clientUpdate.doc, tags, summary: 'Rename the client or set its billing email (nothing else is writable here)' },
    })
    .get('/members', ({ user }) => listMembers(deps, user.clientId), {
      user: true,
      response: { 200: t.Array(MemberResponse) },
      detail: { tags, summary: 'Members and pending invitations of the client' },
    })
    .post(
      '/members',
      ({ user, memberRole, body, set }) => {
        set.status = 201
        return inviteMember(deps, user.clientId, memberRole, memberInvite.read(body))
      },
      {
        user: managers,
        response: { 201: InvitationCreated },
        detail: {
          ...routeErrors('conflict', 'user_limit_reached'),
          ...memberInvite.doc,
          tags,
          summary: 'Invite an email as owner, admin or member (max_users applies); the answer carries the invitation secret, once',
        },
      },
    )
    .patch(
      '/members/:member_id',
      ({ user, memberRole, params, body }) => changeMember(deps, user.clientId, memberRole, params.member_id, memberUpdate.read(body)),
      {
        user: managers,
        params: MemberParams,
        response: { 200: MemberResponse },
        detail: {
          ...routeErrors('conflict', 'last_owner'),
          ...memberUpdate.doc,
          tags,
          summary: "Change a member's role or status (the last owner stays owner)",
        },
      },
    )
    .delete(
      '/members/:member_id',
      async ({ user, memberRole, params, set }) => {
        await removeMember(deps, user.clientId, memberRole, params.member_id)
        set.status = 204
      },
      { user: managers, params: MemberParams, detail: { ...routeErrors('last_owner'), tags, summary: 'Remove a member or withdraw an invitation' } },
    )
}
