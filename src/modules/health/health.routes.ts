import { Elysia, t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { AppContext } from '../../context'
import { VERSION } from '../../version'
import { classifyDbError } from '../../db/db-errors'

const HealthResponse = t.Object({
  status: t.Union([t.Literal('ok'), t.Literal('degraded')]),
  version: t.String(),
  uptime_seconds: Type.Integer(),
  database: t.Object({
    ok: t.Boolean(),
    // only when not ok: what is wrong, SQLite's words for it, and since when
    fault: t.Optional(t.Union([t.Literal('corrupt'), t.Literal('full'), t.Literal('io'), t.Literal('unavailable')])),
    message: t.Optional(t.String()),
    since: t.Optional(t.String()),
  }),
})

type Database = Static<typeof HealthResponse>['database']

/** The database as /health reports it: the connection answers, and no storage fault is on record. */
function databaseState(ctx: AppContext, ping: () => unknown): Database {
  const now = ctx.clock.now()
  try {
    ping()
  } catch (err) {
    const kind = classifyDbError(err)
    if (kind) ctx.db.health.record(kind, (err as Error).message, now)
    else return { ok: false, fault: 'unavailable', message: (err as Error).message, since: new Date(now).toISOString() }
  }
  const fault = ctx.db.health.current(now)
  return fault ? { ok: false, fault: fault.kind, message: fault.message, since: new Date(fault.at).toISOString() } : { ok: true }
}

export function healthRoutes(ctx: AppContext) {
  // reads the schema page: a file damaged there, or no longer a database, fails it
  const ping = ctx.db.sqlite.query('SELECT count(*) AS n FROM sqlite_schema')
  return new Elysia().get(
    '/health',
    ({ set }) => {
      const database = databaseState(ctx, () => ping.get())
      if (!database.ok) set.status = 503
      return {
        status: database.ok ? ('ok' as const) : ('degraded' as const),
        version: VERSION,
        uptime_seconds: Math.floor((ctx.clock.now() - ctx.startedAt) / 1000),
        database,
      }
    },
    { response: { 200: HealthResponse, 503: HealthResponse }, detail: { tags: ['health'], summary: 'Liveness and database check' } },
  )
}
