import { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import type { Config } from '../config'
import { DATA_DIR_SECRETS, secretsFromEnv } from '../db/data-dir'
import { MigrationError, migrationStatus, unknownMigrations } from '../db/migrate'
import { describePostgresError, openPostgres } from '../db/pg/connection'
import { CopyError, copyPlan, copySqliteToPostgres, type TableCopied } from '../db/pg/copy'
import { migratePostgres } from '../db/pg/migrate'
import { ensureMetricTables } from '../db/pg/metrics.partitions'
import { systemClock } from '../lib/clock'
import { databaseSettings } from '../lib/database-url'
import { redactUrl } from '../lib/url-secrets'
import { VERSION } from '../version'
import { lockForService, requireDatabase } from './open'
import { StartupError } from './errors'

export interface CopyCommandOptions {
  to: string | undefined
  replace: boolean
  verify: boolean
  batchRows?: number
}

/**
 * `vigil copy --to postgres://…`: the data dir's SQLite database, every table, into a PostgreSQL
 * database (migrated first), in one transaction there, checked row for row before it commits. The
 * data dir stays locked meanwhile, so no hub writes to what is being copied.
 */
export async function copyCommand(config: Config, o: CopyCommandOptions, out: (line: string) => void = (l) => console.log(l)): Promise<number> {
  // VIGIL_DATABASE_URL (already checked with the settings) keeps the password off the command line
  const to = o.to ?? config.database.url
  if (!to) throw new StartupError('copy needs --to postgres://USER:PASSWORD@HOST:5432/DATABASE (the database to copy into), or VIGIL_DATABASE_URL set to it')
  const url = databaseSettings(to, undefined, (message) => {
    throw new StartupError(message.replace('VIGIL_DATABASE_URL', '--to'))
  }).url!
  const path = requireDatabase(config)
  const now = systemClock.now()
  const lock = lockForService(config, now, 'stop it first: a copy reads the database while nothing writes to it')
  let sqlite: Database | undefined
  const sql = openPostgres({ url, pool: 1 })
  try {
    sqlite = openSource(path)
    await reachable(sql, url)
    const where = redactUrl(url)
    out(`copying ${path} to ${where} (vigil ${VERSION})`)
    try {
      const applied = await migratePostgres(sql, now)
      out(applied.length ? `migrated the target: ${applied.length} migration${applied.length === 1 ? '' : 's'} applied` : 'the target is migrated')
    } catch (err) {
      if (err instanceof MigrationError) throw new StartupError(`${where}: ${err.message}`)
      throw err
    }
    const started = performance.now()
    const width = Math.max(...copyPlan().map((t) => t.name.length))
    // the day partitions' parent tables, which the migrations do not make (the samples' days are made in the copy)
    await ensureMetricTables(sql, now)
    // the samples (the newest read from their records in files beside the database, as the hub reads them) go into
    // PostgreSQL's metric_records, not SQLite's own tables
    const tables = await copySqliteToPostgres(sqlite, sql, copyPlan(), {
      replace: o.replace,
      verify: o.verify,
      batchRows: o.batchRows,
      progress: (t) => out(progressLine(t, width)),
    })
    summary(tables, (performance.now() - started) / 1000, o.verify, config, out)
    return 0
  } catch (err) {
    if (err instanceof StartupError) throw err
    if (err instanceof CopyError) throw new StartupError(`copy refused, nothing was copied: ${err.message}`)
    throw new StartupError(`copy failed, nothing was copied: ${describePostgresError(err, url)}`)
  } finally {
    sqlite?.close()
    lock.release()
    await sql.close().catch(() => {})
  }
}

/** The source as the service left it: its schema must be this version's (a newer or older one would leave columns behind). */
function openSource(path: string): Database {
  let sqlite: Database
  try {
    // read-write only so that SQLite can replay a WAL left by an unclean stop; nothing is written
    sqlite = new Database(path, { readwrite: true, create: false, strict: true })
  } catch (err) {
    throw new StartupError(`cannot open the database ${path} (${(err as Error).message})`)
  }
  const unknown = unknownMigrations(sqlite)
  const pending = migrationStatus(sqlite).filter((m) => !m.applied)
  if (unknown.length || pending.length) {
    sqlite.close()
    throw new StartupError(
      unknown.length
        ? `the database ${path} was migrated by a newer vigil (${unknown.join(', ')}): copy it with that version`
        : `the database ${path} needs ${pending.length} migration${pending.length === 1 ? '' : 's'} this vigil brings: run "vigil migrate" first`,
    )
  }
  return sqlite
}

async function reachable(sql: SQL, url: string) {
  try {
    await sql`SELECT 1`
  } catch (err) {
    throw new StartupError(describePostgresError(err, url))
  }
}

const seconds = (s: number) => `${s < 10 ? s.toFixed(2) : s.toFixed(1)} s`

export const progressLine = (t: TableCopied, width: number) =>
  `  ${t.table.padEnd(width)}  ${String(t.rows).padStart(10)} rows  ${seconds(t.ms / 1000).padStart(8)}${t.verified ? `  checksum ${t.checksum} matches` : ''}`

function summary(tables: TableCopied[], s: number, verified: boolean, config: Config, out: (line: string) => void) {
  const rows = tables.reduce((n, t) => n + t.rows, 0)
  out(
    `copied ${rows} rows in ${tables.length} tables in ${seconds(s)} (${Math.round(rows / Math.max(s, 0.001))} rows/s)` +
      (verified ? '; every table verified: row counts and row checksums match' : '; not verified (--no-verify)'),
  )
  const fromEnv = secretsFromEnv(config)
  const files = DATA_DIR_SECRETS.filter((d) => !fromEnv.includes(d.env)).map((d) => d.file)
  out(
    'carry the secrets over to every hub that serves the copy, or sessions end and stored channel, check and provider secrets can no longer be read: ' +
      [
        ...(files.length ? [`the data dir's ${files.join(' and ')} (copy the files into each hub's data dir)`] : []),
        ...fromEnv.map((v) => `the same ${v}`),
      ].join('; '),
  )
}
