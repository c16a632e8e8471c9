import type { AppContext } from '../../context'
import { authGuards } from '../../http/auth'
import { memberRoles } from '../clients/clients.limits'

/**
 * The auth macros for this module's Elysia instances, so `{ user: ... }` is typed here. Built
 * from ctx exactly as createApp builds the app's; a route runs the guard of the instance that
 * declares it, once.
 */
export function billingGuards(ctx: AppContext) {
  return authGuards({
    verifyAccessToken: (token) => ctx.tokens.verify(token),
    verifyApiKey: (key) => ctx.apiKeys.verify(key),
    rateLimitFor: (clientId) => ctx.limits.rateLimitFor(clientId),
    memberRole: memberRoles(ctx.db.sqlite),
  })
}
