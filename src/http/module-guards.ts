import type { AppContext } from '../context'
import { authGuards } from './auth'

/**
 * The auth macros for a module's own Elysia instance: a module must `.use()` them for its
 * handlers to be typed with `user` / `key` (Elysia applies macros where routes are defined).
 * Same checks as the app's: they share ctx.auth.
 */
export const moduleGuards = (ctx: AppContext) => authGuards(ctx.auth)
