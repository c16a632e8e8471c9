import { Elysia } from 'elysia'
import type { AppContext } from '../../context'
export function aiRoutes(ctx: AppContext) {
  void ctx
  return new Elysia({ prefix: '/v1/ai' })
}
