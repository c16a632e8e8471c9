import type { SQL } from 'bun'
import { sha256Hex } from '../../lib/crypto'
import { MigrationError, type MigrationStatus } from '../migrate'
import { type EmbeddedMigration, MIGRATIONS } from './migrations.gen'

/**
 * PostgreSQL's migrations: the same ledger as SQLite's (`__vigil_migrations`), applied in one
 * transaction (PostgreSQL's DDL is transactional), under an advisory lock held for that transaction,
 * so that hubs starting together on one database apply them once: the others wait, then find
 * nothing pending.
 */

/** The advisory lock's key: any constant of Vigil's own ('vigil mig' in ASCII). */
const MIGRATION_LOCK = 0x7669_6769_6c6d_6967n

const LEDGER = `CREATE TABLE IF NOT EXISTS __vigil_migrations (
  tag text PRIMARY KEY, hash text NOT NULL, applied_at bigint NOT NULL)`

async function ledger(sql: SQL): Promise<Map<string, { tag: string; applied_at: number }>> {
  const [{ exists }] = await sql`SELECT to_regclass('__vigil_migrations') IS NOT NULL AS exists`
  if (!exists) return new Map()
  const rows: { tag: string; applied_at: string }[] = await sql`SELECT tag, applied_at FROM __vigil_migrations`
  return new Map(rows.map((r) => [r.tag, { tag: r.tag, applied_at: Number(r.applied_at) }]))
}

/** Read-only: a database without the ledger has every migration pending. */
export async function migrationStatusPostgres(sql: SQL, migrations: EmbeddedMigration[] = MIGRATIONS): Promise<MigrationStatus[]> {
  const done = await ledger(sql)
  return migrations.map((m) => ({ tag: m.tag, applied: done.has(m.tag), appliedAt: done.get(m.tag)?.applied_at ?? null }))
}

/**
 * Applies the pending migrations; returns their tags. Either every one lands or none does.
 * Refuses a database that a newer Vigil migrated, rather than run old code on a new schema.
 */
export async function migratePostgres(sql: SQL, now: number, migrations: EmbeddedMigration[] = MIGRATIONS): Promise<string[]> {
  let current = ''
  try {
    return await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
      await tx.unsafe(LEDGER)
      const done = await ledger(tx as unknown as SQL)
      const known = new Set(migrations.map((m) => m.tag))
      const unknown = [...done.keys()].filter((tag) => !known.has(tag))
      if (unknown.length) {
        throw new MigrationError(
          `the database has migrations this version does not know (${unknown.join(', ')}): it was used by a newer Vigil; run that version (or a newer one), or restore a backup made by this one`,
        )
      }
      const pending = migrations.filter((m) => !done.has(m.tag))
      for (const m of pending) {
        current = m.tag
        for (const stmt of m.sql.split('--> statement-breakpoint')) {
          if (stmt.trim()) await tx.unsafe(stmt)
        }
        await tx`INSERT INTO __vigil_migrations (tag, hash, applied_at) VALUES (${m.tag}, ${sha256Hex(m.sql)}, ${now})`
      }
      return pending.map((m) => m.tag)
    })
  } catch (err) {
    if (err instanceof MigrationError) throw err
    throw new MigrationError(`migration ${current || '(ledger)'} failed, nothing was applied: ${(err as Error).message}`)
  }
}
