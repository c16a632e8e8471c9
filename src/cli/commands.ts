import type { Config } from '../config'
import { openDatabase } from '../db/connection'
import { migrationStatus, unknownMigrations } from '../db/migrate'
import { databasePath } from '../db/data-dir'
import { VERSION } from '../version'
import { systemClock } from '../lib/clock'
import { createLogger } from '../lib/logger'
import { lockForService, openAndMigrate, requireDatabase } from './open'
import { StartupError } from './errors'

const quietLogger = (config: Config) => createLogger({ level: config.logLevel, format: 'pretty', write: (l) => console.error(l) })

/**
 * `vigil migrate [status]` on the data dir's SQLite database (src/cli/migrate.ts sends
 * PostgreSQL elsewhere): applies what is pending and names each migration, or lists them.
 */
export function migrateCommand(config: Config, sub: string | undefined, out: (line: string) => void = (l) => console.log(l)): number {
  if (sub === 'status') {
    const path = requireDatabase(config)
    const db = openDatabase(path, { synchronous: config.synchronous, create: false })
    try {
      const status = migrationStatus(db.sqlite)
      const unknown = unknownMigrations(db.sqlite)
      const pending = status.filter((m) => !m.applied).length
      out(`${path}: ${status.length - pending} applied, ${pending} pending (vigil ${VERSION})`)
      for (const m of status) {
        out(m.applied ? `applied   ${m.tag}  ${m.appliedAt ? new Date(m.appliedAt).toISOString() : ''}` : `pending   ${m.tag}`)
      }
      for (const tag of unknown) out(`unknown   ${tag}  (from a newer vigil)`)
      if (unknown.length) out('this vigil refuses the database: run the newer version, or restore a backup made by this one')
      else if (pending) out('the service applies pending migrations when it starts (or run "vigil migrate" with it stopped)')
    } finally {
      db.sqlite.close()
    }
    return 0
  }
  if (sub !== undefined)
    throw new StartupError(`unknown migrate subcommand "${sub}"; run "vigil migrate" to apply pending migrations or "vigil migrate --status" to list them`)
  // a schema change under a running service would hand it tables it does not know
  const now = systemClock.now()
  const lock = lockForService(config, now, 'stop the service first (it applies pending migrations itself when it starts)')
  let applied: string[]
  try {
    const db = openAndMigrate(config, quietLogger(config), now)
    // the ledger stamps what this run applied with its start time
    applied = migrationStatus(db.sqlite)
      .filter((m) => m.appliedAt === now)
      .map((m) => m.tag)
    db.close()
  } finally {
    lock.release()
  }
  for (const tag of applied) out(`applied   ${tag}`)
  out(
    applied.length
      ? `${databasePath(config)}: ${applied.length} migration${applied.length === 1 ? '' : 's'} applied, the database is up to date (vigil ${VERSION})`
      : `${databasePath(config)}: the database is up to date (vigil ${VERSION})`,
  )
  return 0
}

/**
 * 0 when /health answers 200 within 3 s, for container and systemd health checks. A failure
 * says on stderr which address was tried: a health check run without the service's own
 * VIGIL_PORT (another shell, a container's HEALTHCHECK) asks port 8080 and fails for that alone.
 */
export async function healthcheckCommand(config: Config, report: (line: string) => void = (l) => console.error(l)): Promise<number> {
  const scheme = config.tlsCert ? 'https' : 'http'
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.port}/health`
  let problem: string
  try {
    const res = await fetch(url, {
      signal: AbortSignal.timeout(3000),
      tls: { rejectUnauthorized: false },
    } as RequestInit)
    if (res.status === 200) return 0
    problem = `answered ${res.status}`
  } catch (err) {
    problem = (err as Error).name === 'TimeoutError' ? 'did not answer within 3 s' : `could not be reached (${(err as Error).message})`
  }
  report(
    `vigil healthcheck: ${url} ${problem}; if the service listens elsewhere, give this command its settings: VIGIL_PORT and VIGIL_HOST (or --port and --host), and VIGIL_TLS_CERT for https`,
  )
  return 1
}
