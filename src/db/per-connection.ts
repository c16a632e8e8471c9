import type { Database } from 'bun:sqlite'

/**
 * One instance per database connection (prepared statements, caches, a write queue), built on
 * first use with that call's `extra` and kept for as long as the connection lives.
 */
export function perConnection<T, X = void>(build: (sqlite: Database, extra: X) => T): (sqlite: Database, extra: X) => T {
  const made = new WeakMap<Database, T>()
  return (sqlite, extra) => {
    let v = made.get(sqlite)
    if (v === undefined) made.set(sqlite, (v = build(sqlite, extra)))
    return v
  }
}
