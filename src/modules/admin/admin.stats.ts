import type { Database } from 'bun:sqlite'
import type { Logger } from '../../lib/logger'

/**
 * Counts another module adds to GET /v1/admin/stats, e.g. the metrics module's
 * `{ hardware_metric_rows, network_metric_rows, ingest_last_hour }`. Register with
 * `ctx.statProviders.push(() => ({ ... }))`. Keep it cheap: it runs on every stats request.
 */
export type StatProvider = () => Record<string, number>

/** The counts this module knows itself: accounts, tenants, devices, keys and the database file. */
export function coreStats(sqlite: Database): Record<string, number> {
  const n = (sql: string) => sqlite.query<{ n: number }, []>(sql).get()!.n
  const pageCount = sqlite.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count
  const pageSize = sqlite.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
  return {
    users: n('SELECT count(*) AS n FROM users'),
    operators: n("SELECT count(*) AS n FROM users WHERE role = 'admin'"),
    clients: n('SELECT count(*) AS n FROM clients'),
    paying_clients: n("SELECT count(*) AS n FROM clients WHERE subscription_status IN ('active', 'trialing')"),
    members: n("SELECT count(*) AS n FROM members WHERE status = 'active'"),
    devices: n('SELECT count(*) AS n FROM devices'),
    api_keys: n('SELECT count(*) AS n FROM api_keys WHERE is_active = 1'),
    database_bytes: pageCount * pageSize,
  }
}

/** Core counts plus every provider's; a failing provider is logged and left out, never a 500. */
export function collectStats(sqlite: Database, providers: StatProvider[], logger: Logger): Record<string, number> {
  const out = coreStats(sqlite)
  for (const provide of providers) {
    try {
      Object.assign(out, provide())
    } catch (err) {
      logger.warn('stat provider failed', { error: (err as Error).message })
    }
  }
  return out
}
