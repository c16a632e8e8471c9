import type { CheckRows } from './checks.metrics'
import type { ChecksStore, SqliteChecks } from './checks.store'
import type { CheckRow } from './checks.store.rows'

/**
 * The checks as the synchronous readers see them (GET /metrics' sections, the dashboard's count
 * of checks down, the alert runtime's subject names): SQLite's statements as asked, or on
 * PostgreSQL a copy this hub keeps: read at start and every 15 s (the `checks.rows` job), and
 * updated at once by what this hub changes and records.
 */
export interface CheckRowsSource extends CheckRows {
  downCount(clientId: string): number
  /** this hub changed, recorded or removed (null) the check */
  put(id: string, row: CheckRow | null): void
  /** every check, as just read */
  reset(all: CheckRow[]): void
  refresh(): Promise<void>
}

const down = (r: CheckRow) => r.paused === 0 && r.state === 'down'

export function sqliteRows(s: SqliteChecks): CheckRowsSource {
  return {
    list: (clientId) => s.list(clientId),
    all: () => s.all(),
    downCount: (clientId) => s.downCount(clientId),
    put() {},
    reset() {},
    refresh: async () => {},
  }
}

export function snapshotRows(store: Pick<ChecksStore, 'all'>): CheckRowsSource {
  let rows = new Map<string, CheckRow>()
  let sorted: CheckRow[] | null = null
  const all = () => (sorted ??= [...rows.values()].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
  const source: CheckRowsSource = {
    list: (clientId) => all().filter((r) => r.client_id === clientId),
    all,
    downCount: (clientId) => all().filter((r) => r.client_id === clientId && down(r)).length,
    put(id, row) {
      if (row) rows.set(id, row)
      else rows.delete(id)
      sorted = null
    },
    reset(list) {
      rows = new Map(list.map((r) => [r.id, r]))
      sorted = null
    },
    async refresh() {
      source.reset(await store.all())
    },
  }
  return source
}
