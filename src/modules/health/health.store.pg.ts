import type { SQL } from 'bun'
import { checkPostgres } from '../../db/pg/connection'
import { num } from '../../db/pg/rows'
import type { DatabaseStats, HealthStore } from './health.store'

/** a /health answer this recent is reused: a proxy or orchestrator polling every hub does not cost a query each */
export const PING_CACHE_MS = 1_000
/** the size and connections are read again when asked after this long (in the background) */
export const STATS_REFRESH_MS = 10_000

/** PostgreSQL did not answer: `since` is when this hub first saw it, of this spell. */
export class DatabaseUnavailable extends Error {
  override name = 'DatabaseUnavailable'
  constructor(
    message: string,
    readonly since: number,
  ) {
    super(message)
  }
}

export interface PgHealthOptions {
  /** the ping's cache and the spell's start: the app's clock (manual in tests) */
  now: () => number
  /** VIGIL_DATABASE_URL, to name the server in a failure with its password left out */
  url: string
  timeoutMs?: number
}

/**
 * The hub's PostgreSQL as /health sees it: `SELECT 1` within a bound (checkPostgres), at most once
 * a second whatever the number of callers, and no state kept beyond that: when the server answers
 * again, the next ping after the cache says so, with no restart. The stats (size, connections)
 * are what the last read found; a read older than STATS_REFRESH_MS starts another, and the first
 * starts when the store is made.
 */
export function createHealthStorePg(sql: SQL, o: PgHealthOptions): HealthStore & { refresh(): Promise<void> } {
  let cached: { at: number; problem: string | null } | null = null
  let inFlight: Promise<string | null> | null = null
  let downSince: number | null = null
  let stats: DatabaseStats = { database_bytes: 0, database_connections: 0, database_connections_active: 0 }
  let statsAt = Number.NEGATIVE_INFINITY

  async function probe(): Promise<string | null> {
    const r = await checkPostgres(sql, o.url, { timeoutMs: o.timeoutMs })
    return r.ok ? null : r.reason
  }

  let reading: Promise<void> | null = null
  function refreshStats(): Promise<void> {
    reading ??= readStats().finally(() => {
      reading = null
    })
    return reading
  }

  async function readStats() {
    statsAt = o.now()
    try {
      const [row] = await sql`
        SELECT pg_database_size(current_database()) AS bytes,
               count(*) AS connections,
               count(*) FILTER (WHERE state = 'active') AS active
          FROM pg_stat_activity WHERE datname = current_database()`
      stats = { database_bytes: num(row.bytes), database_connections: num(row.connections), database_connections_active: num(row.active) }
    } catch {
      // the database is down: /health says so; the figures stay as last read
    }
  }
  void refreshStats()

  return {
    async ping() {
      const now = o.now()
      if (!cached || now - cached.at >= PING_CACHE_MS) {
        inFlight ??= probe().finally(() => {
          inFlight = null
        })
        cached = { at: now, problem: await inFlight }
      }
      if (cached.problem === null) {
        downSince = null
        return
      }
      downSince ??= cached.at
      throw new DatabaseUnavailable(cached.problem, downSince)
    },
    /** reads the stats now (the store's own reads are in the background) */
    refresh: refreshStats,
    stats() {
      if (o.now() - statsAt >= STATS_REFRESH_MS) void refreshStats()
      return stats
    },
  }
}
