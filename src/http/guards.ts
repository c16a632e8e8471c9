import type { AppContext } from '../context'
import { authGuards } from './auth'

/**
 * The route guards for a module's own Elysia instance (`.use(guards(ctx))`), so its routes can
 * say `{ user: true }` or `{ key: 'metrics:write' }` with typed `user` / `key` in handlers
 * (Elysia applies macros where routes are defined). They share ctx.auth with the gateway.
 */
export const guards = (ctx: AppContext) => authGuards(ctx.auth)

/** OpenAPI `security` for a route's `detail`: which credential it takes. */
export const JWT_AUTH: Record<string, string[]>[] = [{ bearer: [] }]
export const KEY_AUTH: Record<string, string[]>[] = [{ apiKey: [] }, { bearer: [] }]
