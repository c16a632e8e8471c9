import { Elysia, t } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { routeErrors } from '../../http/openapi-errors'
import { jsonInput } from '../../http/input'
import { requestState } from '../../http/request-state'
import { login, logout, refresh, switchClient } from './users.auth'
import { MembershipResponse, RefreshRequest, SwitchClientRequest, TokenResponse, UserLogin, UserRegister, UserResponse } from './users.model'
import { register as registerAccount } from './users.signup'
import { getUser, listMemberships, toUserResponse, type UsersDeps } from './users.service'

const tags = ['auth']
const register = jsonInput(UserRegister)
const credentials = jsonInput(UserLogin)
const refreshInput = jsonInput(RefreshRequest)
const switchInput = jsonInput(SwitchClientRequest)

/** Portal accounts: registration, password login, token refresh and logout, the current user. */
export function usersRoutes(deps: UsersDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/auth' })
    .use(authGuards(auth))
    .post(
      '/register',
      async ({ body, set, request }) => {
        const user = await registerAccount(deps, register.read(body), request.headers)
        deps.logger.info('user registered', { user_id: user.id, client_id: user.client_id, role: user.role })
        set.status = 201
        return toUserResponse(user)
      },
      {
        response: { 201: UserResponse },
        detail: {
          ...routeErrors('email_taken', 'signup_closed', 'setup_token_required', 'invalid_invitation'),
          ...register.doc,
          tags,
          summary:
            'Create an account and its client, or join an inviting client (the first account is the operator; VIGIL_SIGNUP decides who else may register)',
        },
      },
    )
    .post('/login', ({ body, request }) => login(deps, credentials.read(body), requestState(request)?.ip ?? 'unknown'), {
      response: { 200: TokenResponse },
      detail: { ...routeErrors('invalid_credentials'), ...credentials.doc, tags, summary: 'Sign in with email and password' },
    })
    .post('/refresh', ({ body }) => refresh(deps, refreshInput.read(body).refresh_token), {
      response: { 200: TokenResponse },
      detail: {
        ...routeErrors('unauthorized'),
        ...refreshInput.doc,
        tags,
        summary: 'Exchange a refresh token for a new pair (single use; reuse revokes the session)',
      },
    })
    .post(
      '/logout',
      async ({ body, set }) => {
        await logout(deps, refreshInput.read(body).refresh_token)
        set.status = 204
      },
      { detail: { ...refreshInput.doc, tags, summary: 'Revoke the session of a refresh token (204 even when unknown)' } },
    )
    .get('/me', ({ user }) => getUser(deps, user), {
      user: true,
      response: { 200: UserResponse },
      detail: { tags, summary: 'The signed-in user' },
    })
    .get('/memberships', ({ user }) => listMemberships(deps, user), {
      user: true,
      response: { 200: t.Array(MembershipResponse) },
      detail: { tags, summary: 'The clients the user belongs to or is invited to' },
    })
    .post('/switch', ({ user, body }) => switchClient(deps, user, switchInput.read(body).client_id), {
      user: true,
      response: { 200: TokenResponse },
      detail: {
        ...routeErrors('not_found'),
        ...switchInput.doc,
        tags,
        summary: 'New tokens acting for another client the user is an active member of (never accepts a pending invitation)',
      },
    })
}
