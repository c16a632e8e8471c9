import type { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import type { DbHandle } from '../db/connection'

/**
 * The store a domain gets on this hub's engine: built on PostgreSQL when the hub runs on it
 * (VIGIL_DATABASE_URL), else on the SQLite file. Every store with a PostgreSQL implementation is
 * chosen here, so a hub never splits one domain's rows between two databases.
 */
export function onEngine<T>(on: { db: Pick<DbHandle, 'sqlite'>; pg?: SQL | null }, sqlite: (db: Database) => T, pg: (sql: SQL) => T): T {
  return on.pg ? pg(on.pg) : sqlite(on.db.sqlite)
}
