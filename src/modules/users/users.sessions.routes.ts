import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import { AppError, forbidden, unauthorized } from '../../http/errors'
import { jsonInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import { requestState } from '../../http/request-state'
import { changePassword, login, logout, refresh, switchSession } from './users.auth'
import { clearedCookie, crossSite, overHttps, readSessionCookie, sessionCookie, type CookieSite } from './users.cookie'
import { PasswordChange, SessionTokenResponse, SwitchClientRequest, UserLogin, type TokenResponse } from './users.model'
import type { UsersDeps } from './users.service'

const tags = ['auth']
const credentials = jsonInput(UserLogin)
const switchInput = jsonInput(SwitchClientRequest)
const passwordInput = jsonInput(PasswordChange)

const ipOf = (request: Request) => requestState(request)?.ip ?? 'unknown'

/**
 * The portal's sign-in: the same login, refresh (single use, reuse detection), switch and logout
 * as the JSON endpoints, with the refresh token in the `vigil_session` cookie instead of the
 * body. Each refuses a request another site's page sends (403), on top of SameSite=Strict.
 * And the password change, for any signed-in user.
 */
export function sessionRoutes(deps: UsersDeps, auth: Authenticator, site: CookieSite) {
  const sameSiteOnly = (request: Request) => {
    if (crossSite(request, site)) throw forbidden('Cross-site requests may not use the session cookie')
  }
  /** the tokens for the body, the refresh token into the cookie */
  const answer = (pair: TokenResponse, request: Request, headers: Record<string, string>): SessionTokenResponse => {
    headers['set-cookie'] = sessionCookie(pair.refresh_token, deps.refreshTtlSeconds, overHttps(request, site))
    headers['cache-control'] = 'no-store'
    return { access_token: pair.access_token, token_type: pair.token_type, expires_in: pair.expires_in }
  }
  /** a refused session also loses its cookie */
  const clearingOn401 = async <T>(request: Request, run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (err) {
      if (err instanceof AppError && err.code === 'unauthorized')
        throw new AppError(err.code, err.message, err.param, { ...err.headers, 'set-cookie': clearedCookie(overHttps(request, site)) })
      throw err
    }
  }

  return new Elysia({ prefix: '/v1/auth' })
    .use(authGuards(auth))
    .post(
      '/session',
      async ({ body, request, set }) => {
        sameSiteOnly(request)
        const pair = await login(deps, credentials.read(body), ipOf(request))
        return answer(pair, request, set.headers as Record<string, string>)
      },
      {
        response: { 200: SessionTokenResponse },
        detail: {
          ...routeErrors('invalid_credentials', 'forbidden'),
          ...credentials.doc,
          tags,
          summary: 'Sign in a browser: the access token in the body, the refresh token in the HttpOnly vigil_session cookie',
        },
      },
    )
    .post(
      '/session/refresh',
      async ({ request, set }) => {
        sameSiteOnly(request)
        const token = readSessionCookie(request)
        const pair = await clearingOn401(request, () => {
          if (!token) throw unauthorized('No session cookie; sign in again')
          return refresh(deps, token)
        })
        return answer(pair, request, set.headers as Record<string, string>)
      },
      {
        response: { 200: SessionTokenResponse },
        detail: {
          ...routeErrors('unauthorized', 'forbidden'),
          tags,
          summary: 'A new access token for the browser session in the cookie; the cookie is rotated (single use: reuse ends the session)',
        },
      },
    )
    .post(
      '/session/switch',
      async ({ user, body, request, set }) => {
        sameSiteOnly(request)
        const { client_id } = switchInput.read(body)
        const pair = await clearingOn401(request, () => switchSession(deps, user, client_id, readSessionCookie(request)))
        return answer(pair, request, set.headers as Record<string, string>)
      },
      {
        user: true,
        response: { 200: SessionTokenResponse },
        detail: {
          ...routeErrors('not_found'),
          ...switchInput.doc,
          tags,
          summary: 'The browser session acting for another client of the user: a new session replaces the one in the cookie',
        },
      },
    )
    .delete(
      '/session',
      async ({ request, set }) => {
        sameSiteOnly(request)
        const token = readSessionCookie(request)
        if (token) await logout(deps, token)
        set.headers['set-cookie'] = clearedCookie(overHttps(request, site))
        set.status = 204
      },
      { detail: { ...routeErrors('forbidden'), tags, summary: 'Sign the browser out: its session is revoked and the cookie cleared (204 even without one)' } },
    )
    .post(
      '/password',
      async ({ user, body, request, set }) => {
        await changePassword(deps, user, passwordInput.read(body), ipOf(request))
        set.status = 204
      },
      {
        user: true,
        detail: {
          ...routeErrors('invalid_credentials'),
          ...passwordInput.doc,
          tags,
          summary: "Change the signed-in user's password (the current one is required); the user's other sessions end",
        },
      },
    )
}
