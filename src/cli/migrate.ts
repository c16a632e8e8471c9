import type { SQL } from 'bun'
import type { Config } from '../config'
import { MigrationError } from '../db/migrate'
import { describePostgresError, openPostgres } from '../db/pg/connection'
import { migratePostgres, migrationStatusPostgres } from '../db/pg/migrate'
import { MIGRATIONS } from '../db/pg/migrations.gen'
import { redactUrl } from '../lib/url-secrets'
import { systemClock } from '../lib/clock'
import { VERSION } from '../version'
import { migrateCommand } from './commands'
import { StartupError } from './errors'

/**
 * `vigil migrate [status]` on either engine: PostgreSQL when VIGIL_DATABASE_URL is set, else the
 * data dir's SQLite database as `vigil serve` would open it.
 */
export async function migrate(config: Config, sub: string | undefined, out: (line: string) => void = (l) => console.log(l)): Promise<number> {
  const url = config.database.url
  if (url === null) return migrateCommand(config, sub, out)
  if (sub !== undefined && sub !== 'status')
    throw new StartupError(`unknown migrate subcommand "${sub}"; run "vigil migrate" to apply pending migrations or "vigil migrate --status" to list them`)
  // one connection: migrations run in one transaction anyway
  const sql = openPostgres({ url, pool: 1 })
  try {
    await reachable(sql, url)
    return sub === 'status' ? await status(sql, url, out) : await apply(sql, url, out)
  } finally {
    await sql.close().catch(() => {})
  }
}

/** Fails early with the server's own reason: otherwise it would read as a failed migration. */
async function reachable(sql: SQL, url: string) {
  try {
    await sql`SELECT 1`
  } catch (err) {
    throw new StartupError(describePostgresError(err, url))
  }
}

async function apply(sql: SQL, url: string, out: (line: string) => void): Promise<number> {
  let applied: string[]
  try {
    // PostgreSQL's advisory lock makes this safe beside running hubs: whoever comes second waits, then finds nothing pending
    applied = await migratePostgres(sql, systemClock.now())
  } catch (err) {
    if (err instanceof MigrationError) throw new StartupError(`${redactUrl(url)}: ${err.message}`)
    throw new StartupError(describePostgresError(err, url))
  }
  for (const tag of applied) out(`applied   ${tag}`)
  out(
    applied.length
      ? `${redactUrl(url)}: ${applied.length} migration${applied.length === 1 ? '' : 's'} applied, the database is up to date (vigil ${VERSION})`
      : `${redactUrl(url)}: the database is up to date (vigil ${VERSION})`,
  )
  return 0
}

async function status(sql: SQL, url: string, out: (line: string) => void): Promise<number> {
  try {
    const rows = await migrationStatusPostgres(sql)
    const unknown = await unknownTags(sql)
    const pending = rows.filter((m) => !m.applied).length
    out(`${redactUrl(url)}: ${rows.length - pending} applied, ${pending} pending (vigil ${VERSION})`)
    for (const m of rows) out(m.applied ? `applied   ${m.tag}  ${m.appliedAt ? new Date(m.appliedAt).toISOString() : ''}` : `pending   ${m.tag}`)
    for (const tag of unknown) out(`unknown   ${tag}  (from a newer vigil)`)
    if (unknown.length) out('this vigil refuses the database: run the newer version, or restore a backup made by this one')
    else if (pending) out('run "vigil migrate" to apply them')
    return 0
  } catch (err) {
    throw new StartupError(describePostgresError(err, url))
  }
}

/** Tags in the ledger this version does not ship: a newer Vigil migrated the database. */
async function unknownTags(sql: SQL): Promise<string[]> {
  const [{ exists }] = await sql`SELECT to_regclass('__vigil_migrations') IS NOT NULL AS exists`
  if (!exists) return []
  const known = new Set(MIGRATIONS.map((m) => m.tag))
  const rows: { tag: string }[] = await sql`SELECT tag FROM __vigil_migrations ORDER BY tag`
  return rows.map((r) => r.tag).filter((tag) => !known.has(tag))
}
