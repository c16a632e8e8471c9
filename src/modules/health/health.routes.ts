import { Elysia, t } from 'elysia'
import type { AppContext } from '../../context'
import { VERSION } from '../../version'

const HealthResponse = t.Object({
  status: t.Union([t.Literal('ok'), t.Literal('degraded')]),
  version: t.String(),
  uptime_seconds: t.Integer(),
  database: t.Object({ ok: t.Boolean() }),
})

export function healthRoutes(ctx: AppContext) {
  const ping = ctx.db.sqlite.query('SELECT 1 AS ok')
  return new Elysia().get(
    '/health',
    ({ set }) => {
      let ok = true
      try {
        ping.get()
      } catch {
        ok = false
      }
      if (!ok) set.status = 503
      return {
        status: ok ? ('ok' as const) : ('degraded' as const),
        version: VERSION,
        uptime_seconds: Math.floor((ctx.clock.now() - ctx.startedAt) / 1000),
        database: { ok },
      }
    },
    { response: { 200: HealthResponse, 503: HealthResponse }, detail: { tags: ['health'], summary: 'Liveness and database check' } },
  )
}
