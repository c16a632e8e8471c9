import type { AppContext } from '../context'
import { authGuards } from './auth'

/**
 * The route guards for a module's own Elysia instance (`.use(guards(ctx))`), so its routes can
 * say `{ user: true }` or `{ key: 'metrics:write' }` with typed `user` / `key` in handlers
 * (Elysia applies macros where routes are defined). They share ctx.auth with the gateway.
 */
export const guards = (ctx: AppContext) => authGuards(ctx.auth)

export { JWT_AUTH, KEY_AUTH } from './openapi-errors'
