import type { Database } from 'bun:sqlite'

/**
 * The database's own figures. `dbstat` (compiled into Bun's SQLite) reads every page of the file
 * to sum each table's and index's pages: seconds on a large database, so only the storage jobs
 * call `pagesPerTable`, and its answer is kept (storage.service.ts). The page counts are free.
 */
export function createStorageStore(sqlite: Database) {
  // an index counts for the table it belongs to (tbl_name); sqlite_schema itself has no row there
  const perTable = sqlite.query<{ tbl: string; bytes: number }, []>(
    `SELECT coalesce(s.tbl_name, d.name) AS tbl, sum(d.pgsize) AS bytes
     FROM dbstat AS d LEFT JOIN sqlite_schema AS s ON s.name = d.name
     WHERE d.aggregate = 1 GROUP BY 1`,
  )
  const pageCount = sqlite.query<{ page_count: number }, []>('PRAGMA page_count')
  const freelist = sqlite.query<{ freelist_count: number }, []>('PRAGMA freelist_count')
  const pageSize = sqlite.query<{ page_size: number }, []>('PRAGMA page_size')
  return {
    /** bytes of every table, its indexes included */
    bytesPerTable(): Map<string, number> {
      return new Map(perTable.all().map((r) => [r.tbl, r.bytes]))
    },
    /** the pages in use (the file without its free pages), in bytes */
    usedBytes: () => (pageCount.get()!.page_count - freelist.get()!.freelist_count) * pageSize.get()!.page_size,
    /** the file's size: pages in use and free */
    fileBytes: () => pageCount.get()!.page_count * pageSize.get()!.page_size,
  }
}

export type StorageStore = ReturnType<typeof createStorageStore>
