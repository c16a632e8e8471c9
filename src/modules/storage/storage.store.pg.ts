import type { SQL } from 'bun'
import type { Raw } from '../../db/pg/rows'
import type { StorageStore } from './storage.store'

/**
 * PostgreSQL's own figures: `pg_total_relation_size` per table of the schema Vigil migrated (its
 * indexes and TOAST included), a partition counted under the table it partitions (so a family of
 * time partitions is one name, as STORAGE_TIERS lists it), and `pg_database_size` for the whole.
 * The server keeps these figures itself: no scan of the data, unlike SQLite's dbstat.
 */
export function createStorageStorePg(sql: SQL): StorageStore {
  const databaseBytes = async () => {
    const [r]: Raw[] = await sql`SELECT pg_database_size(current_database())::float8 AS bytes`
    return Number(r!.bytes)
  }
  return {
    async bytesPerTable() {
      const rows: Raw[] = await sql`SELECT coalesce(root.relname, c.relname) AS tbl, sum(pg_total_relation_size(c.oid))::float8 AS bytes
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_class root ON root.oid = pg_partition_root(c.oid) AND root.oid <> c.oid
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
        GROUP BY 1`
      return new Map(rows.map((r) => [r.tbl as string, Number(r.bytes)]))
    },
    usedBytes: databaseBytes,
    fileBytes: databaseBytes,
  }
}
