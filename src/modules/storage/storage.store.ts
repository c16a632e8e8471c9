import type { Database } from 'bun:sqlite'

/**
 * Bytes per table, its indexes included (an index counts for its tbl_name; sqlite_schema itself
 * has no row there). `dbstat` (compiled into Bun's SQLite) reads every page of the file: seconds
 * on a large database, so it runs on a thread of its own (storage.measure.worker.ts) and only
 * the storage jobs ask for it; its answer is kept (storage.service.ts).
 */
export const tableBytesQuery = `SELECT coalesce(s.tbl_name, d.name) AS tbl, sum(d.pgsize) AS bytes
  FROM dbstat AS d LEFT JOIN sqlite_schema AS s ON s.name = d.name
  WHERE d.aggregate = 1 GROUP BY 1`

/**
 * The database's own figures of its size, on either engine (this file: SQLite's pages;
 * storage.store.pg.ts: PostgreSQL's relation and database sizes).
 */
export interface StorageStore {
  /** bytes of every table, its indexes (and on PostgreSQL its TOAST and partitions) included, by table name */
  bytesPerTable(): Promise<Map<string, number>>
  /** the bytes the data takes: SQLite's pages in use (the file without its free pages); PostgreSQL's database size */
  usedBytes(): Promise<number>
  /** the database's size on disk: SQLite's pages in use and free; PostgreSQL's database size */
  fileBytes(): Promise<number>
}

/** SQLite's figures, synchronous: the page counts are free; the scan per table is for a database only this connection sees. */
export function sqliteStorage(sqlite: Database) {
  const perTable = sqlite.query<{ tbl: string; bytes: number }, []>(tableBytesQuery)
  const pageCount = sqlite.query<{ page_count: number }, []>('PRAGMA page_count')
  const freelist = sqlite.query<{ freelist_count: number }, []>('PRAGMA freelist_count')
  const pageSize = sqlite.query<{ page_size: number }, []>('PRAGMA page_size')
  return {
    /** bytes of every table, its indexes included, on this connection (an in-memory database: tests) */
    bytesPerTable(): Map<string, number> {
      return new Map(perTable.all().map((r) => [r.tbl, r.bytes]))
    },
    usedBytes: () => (pageCount.get()!.page_count - freelist.get()!.freelist_count) * pageSize.get()!.page_size,
    fileBytes: () => pageCount.get()!.page_count * pageSize.get()!.page_size,
  }
}

export function createStorageStore(sqlite: Database): StorageStore {
  const s = sqliteStorage(sqlite)
  return {
    bytesPerTable: async () => s.bytesPerTable(),
    usedBytes: async () => s.usedBytes(),
    fileBytes: async () => s.fileBytes(),
  }
}
