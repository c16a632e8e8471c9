import { hostname } from 'node:os'
import type { SQL } from 'bun'
import { type Raw, num } from '../../db/pg/rows'
import type { Clock } from '../../lib/clock'
import type { Logger } from '../../lib/logger'
import { gapsBetween, type HubRunsPort, KEEP_MS } from './ai.hub-runs'

/**
 * The runs of every hub on one PostgreSQL database (the hub_runs table), each from its start to
 * its last sign of life (the `ai.hub-alive` job, on every hub, every minute). A gap is a stretch
 * when no hub ran: with two hubs behind a proxy, a collector could still send while one restarted,
 * so its losses then are the network's. As with the file (ai.hub-runs.ts), the record is
 * advisory: a failed write is logged and the ingest and the rules go on.
 */
export function hubRunsPg(deps: { sql: SQL; clock: Clock; logger: Logger; hub?: string }): HubRunsPort {
  const { sql } = deps
  const started = deps.clock.now()
  const hub = deps.hub ?? `${hostname()}:${process.pid}:${started}:${Math.random().toString(36).slice(2, 8)}`
  const beat = async () => {
    const now = deps.clock.now()
    try {
      await sql`INSERT INTO hub_runs (hub, started_at, last_beat_at) VALUES (${hub}, ${started}, ${now})
        ON CONFLICT (hub) DO UPDATE SET last_beat_at = excluded.last_beat_at`
      await sql`DELETE FROM hub_runs WHERE last_beat_at < ${now - KEEP_MS}`
    } catch (err) {
      deps.logger.warn('could not record this hub as running', { error: (err as Error).message })
    }
  }
  void beat()
  return {
    beat,
    async gaps(from, to) {
      const rows: Raw[] = await sql`SELECT started_at, last_beat_at FROM hub_runs WHERE last_beat_at >= ${deps.clock.now() - KEEP_MS}`
      return gapsBetween(
        rows.map((r) => ({ from: num(r.started_at), to: num(r.last_beat_at) })),
        from,
        to,
      )
    },
  }
}
