import type { AppContext } from '../context'
import { memberRoles } from '../modules/clients/clients.limits'
import { authGuards } from './auth'
import type { Authenticator } from './principal'

/**
 * The auth macros for a module's own Elysia instance: a module must `.use()` them for its
 * handlers to be typed with `user` / `key` (Elysia applies a module's macros where its routes
 * are defined). Built from the context, so it is the same checks as the app's.
 */
export function moduleGuards(ctx: AppContext) {
  const auth: Authenticator = {
    verifyAccessToken: (token) => ctx.tokens.verify(token),
    verifyApiKey: (key) => ctx.apiKeys.verify(key),
    rateLimitFor: (clientId) => ctx.limits.rateLimitFor(clientId),
    memberRole: memberRoles(ctx.db.sqlite),
  }
  return authGuards(auth)
}
