import type { AppContext } from '../context'
import { memberRoles } from '../modules/clients/clients.limits'
import { authGuards } from './auth'
import type { Authenticator } from './principal'

/** The Authenticator built from the app's context: one definition for the gateway and the guards. */
export function authenticatorOf(ctx: AppContext): Authenticator {
  return {
    verifyAccessToken: (token) => ctx.tokens.verify(token),
    verifyApiKey: (key) => ctx.apiKeys.verify(key),
    rateLimitFor: (clientId) => ctx.limits.rateLimitFor(clientId),
    memberRole: memberRoles(ctx.db.sqlite),
  }
}

/**
 * The route guards for a module's own Elysia instance (`.use(guards(ctx))`), so its routes can
 * say `{ user: true }` or `{ key: 'metrics:write' }` with typed `user` / `key` in handlers.
 */
export const guards = (ctx: AppContext) => authGuards(authenticatorOf(ctx))

/** OpenAPI `security` for a route's `detail`: which credential it takes. */
export const JWT_AUTH: Record<string, string[]>[] = [{ bearer: [] }]
export const KEY_AUTH: Record<string, string[]>[] = [{ apiKey: [] }, { bearer: [] }]
