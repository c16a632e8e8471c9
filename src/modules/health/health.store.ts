import type { Database } from 'bun:sqlite'

/**
 * The database as /health and the operator's stats see it, on either engine. `ping` throws when
 * the database does not answer (the error says why); `stats` is the size and, on PostgreSQL, the
 * connections. `stats` stays synchronous for the callers that read it while rendering (the
 * operator's stats, the /metrics scrape): SQLite reads its file's pages at once, PostgreSQL
 * answers what it last read (health.store.pg.ts).
 */
export interface HealthStore {
  ping(): Promise<void>
  stats(): DatabaseStats
}

export type DatabaseStats = {
  /** the database's size in bytes */
  database_bytes: number
  /** PostgreSQL: the connections open to the database, of every hub and any other client */
  database_connections?: number
  /** PostgreSQL: of those, the ones running a query at that moment */
  database_connections_active?: number
}

/** The database file itself: whether it answers, and how large it is. */
export function createHealthStore(sqlite: Database): HealthStore {
  // reads the schema page: a file damaged there, or no longer a database, fails it
  const ping = sqlite.query('SELECT count(*) AS n FROM sqlite_schema')
  const pageCount = sqlite.query<{ page_count: number }, []>('PRAGMA page_count')
  const pageSize = sqlite.query<{ page_size: number }, []>('PRAGMA page_size')
  return {
    ping: async () => void ping.get(),
    stats: () => ({ database_bytes: pageCount.get()!.page_count * pageSize.get()!.page_size }),
  }
}
