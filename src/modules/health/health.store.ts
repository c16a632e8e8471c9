import type { Database } from 'bun:sqlite'

/** The database file itself: whether it answers, and how large it is. */
export function createHealthStore(sqlite: Database) {
  // reads the schema page: a file damaged there, or no longer a database, fails it
  const ping = sqlite.query('SELECT count(*) AS n FROM sqlite_schema')
  const pageCount = sqlite.query<{ page_count: number }, []>('PRAGMA page_count')
  const pageSize = sqlite.query<{ page_size: number }, []>('PRAGMA page_size')
  return {
    ping: () => void ping.get(),
    bytes: () => pageCount.get()!.page_count * pageSize.get()!.page_size,
  }
}

export type HealthStore = ReturnType<typeof createHealthStore>
