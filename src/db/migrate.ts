import type { Database } from 'bun:sqlite'
import { sha256Hex } from '../lib/crypto'
import { MIGRATIONS, type EmbeddedMigration } from './migrations.gen'

export class MigrationError extends Error {}

export interface MigrationStatus {
  tag: string
  applied: boolean
  appliedAt: number | null
}

const LEDGER = `CREATE TABLE IF NOT EXISTS __vigil_migrations (
  tag TEXT PRIMARY KEY, hash TEXT NOT NULL, applied_at INTEGER NOT NULL)`

function applied(sqlite: Database) {
  sqlite.run(LEDGER)
  return new Map(
    sqlite
      .query<{ tag: string; hash: string; applied_at: number }, []>('SELECT tag, hash, applied_at FROM __vigil_migrations')
      .all()
      .map((r) => [r.tag, r]),
  )
}

/** Read-only: a database without the ledger yet has every migration pending. */
export function migrationStatus(sqlite: Database, migrations: EmbeddedMigration[] = MIGRATIONS): MigrationStatus[] {
  const hasLedger = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__vigil_migrations'").get() !== null
  const done = hasLedger ? applied(sqlite) : new Map<string, { applied_at: number }>()
  return migrations.map((m) => ({ tag: m.tag, applied: done.has(m.tag), appliedAt: done.get(m.tag)?.applied_at ?? null }))
}

/** Tags in the database's ledger that these migrations do not have: a newer Vigil wrote them. */
export function unknownMigrations(sqlite: Database, migrations: EmbeddedMigration[] = MIGRATIONS): string[] {
  const hasLedger = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__vigil_migrations'").get() !== null
  if (!hasLedger) return []
  const known = new Set(migrations.map((m) => m.tag))
  return [...applied(sqlite).keys()].filter((tag) => !known.has(tag))
}

/**
 * Applies the pending migrations, all in one IMMEDIATE transaction: either every one of them
 * lands or the database is left exactly as it was (SQLite DDL is transactional).
 * Refuses a database that a newer Vigil migrated, rather than run old code on a new schema.
 */
export function migrate(sqlite: Database, now: number, migrations: EmbeddedMigration[] = MIGRATIONS): string[] {
  const done = applied(sqlite)
  const unknown = unknownMigrations(sqlite, migrations)
  if (unknown.length) {
    throw new MigrationError(
      `the database has migrations this version does not know (${unknown.join(', ')}): it was used by a newer Vigil; run that version (or a newer one), or restore a backup made by this one`,
    )
  }
  const pending = migrations.filter((m) => !done.has(m.tag))
  if (!pending.length) return []
  let current = ''
  // A migration that rebuilds a table (drizzle's __new_ copy, between PRAGMA foreign_keys=OFF and
  // ON) needs the checks off for the whole transaction: inside one the pragma is ignored, and
  // dropping the old table would delete every row that cascades from it. The keys are checked
  // before the commit instead.
  const rebuilds = pending.some((m) => m.sql.includes('PRAGMA foreign_keys=OFF'))
  if (rebuilds) sqlite.run('PRAGMA foreign_keys = OFF')
  try {
    sqlite
      .transaction(() => {
        for (const m of pending) {
          current = m.tag
          for (const stmt of m.sql.split('--> statement-breakpoint')) {
            if (stmt.trim()) sqlite.run(stmt)
          }
          sqlite.run('INSERT INTO __vigil_migrations (tag, hash, applied_at) VALUES (?, ?, ?)', [m.tag, sha256Hex(m.sql), now])
        }
        if (rebuilds && sqlite.query('PRAGMA foreign_key_check').all().length) throw new Error('a rebuilt table left rows whose foreign keys point nowhere')
      })
      .immediate()
  } catch (err) {
    throw new MigrationError(`migration ${current} failed, nothing was applied: ${(err as Error).message}`)
  } finally {
    if (rebuilds) sqlite.run('PRAGMA foreign_keys = ON')
  }
  return pending.map((m) => m.tag)
}
